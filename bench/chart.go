package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// writeChart draws p99 wait against contention, one line per library: the
// x axis holds the single-key shapes (processes × goroutines), in table
// order; one panel per hold time. The y axis is logarithmic. The format
// follows the file's extension: .svg, else PNG.
func writeChart(path string, rows []summary) error {
	var holds []string
	var shapes []string
	panels := map[string]map[string]map[string]float64{} // hold → lib → shape → p99 ms
	var libs []string
	for _, r := range rows {
		if r.work.keys != 1 || r.work.contenders() < 2 || math.IsNaN(r.p99) {
			continue
		}
		h := holdText(r.work.hold)
		if panels[h] == nil {
			panels[h] = map[string]map[string]float64{}
			holds = append(holds, h)
		}
		if panels[h][r.lib] == nil {
			panels[h][r.lib] = map[string]float64{}
		}
		panels[h][r.lib][r.work.shape()] = r.p99 * 1e3
		shapes = appendNew(shapes, r.work.shape())
		libs = appendNew(libs, r.lib)
	}
	if len(holds) == 0 {
		return fmt.Errorf("chart: no contended single-key workload was run")
	}
	row := make([]*plot.Plot, len(holds))
	for i, h := range holds {
		p := plot.New()
		p.Title.Text = "p99 wait, one key, hold " + h
		p.X.Label.Text = "processes × goroutines"
		p.Y.Label.Text = "p99 wait (ms, log)"
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.NominalX(shapes...)
		p.Legend.Top = true
		p.Legend.Left = true
		for j, lib := range libs {
			var xys plotter.XYs
			for x, s := range shapes {
				if v, ok := panels[h][lib][s]; ok && v > 0 {
					xys = append(xys, plotter.XY{X: float64(x), Y: v})
				}
			}
			if len(xys) == 0 {
				continue
			}
			l, pts, err := plotter.NewLinePoints(xys)
			if err != nil {
				return err
			}
			l.Color = plotutil.Color(j)
			l.Dashes = plotutil.Dashes(j)
			pts.Color = plotutil.Color(j)
			pts.Shape = plotutil.Shape(j)
			p.Add(l, pts)
			p.Legend.Add(lib, l, pts)
		}
		row[i] = p
	}
	w, h := vg.Length(len(holds))*14*vg.Centimeter, 12*vg.Centimeter
	var c interface {
		vg.CanvasSizer
	}
	svg := strings.EqualFold(filepath.Ext(path), ".svg")
	if svg {
		c = vgsvg.New(w, h)
	} else {
		c = vgimg.New(w, h)
	}
	canvases := plot.Align([][]*plot.Plot{row}, draw.Tiles{Rows: 1, Cols: len(holds), PadX: vg.Centimeter}, draw.New(c))
	for i, p := range row {
		p.Draw(canvases[0][i])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if svg {
		_, err = c.(*vgsvg.Canvas).WriteTo(f)
	} else {
		_, err = vgimg.PngCanvas{Canvas: c.(*vgimg.Canvas)}.WriteTo(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// appendNew appends s to list unless it is there already.
func appendNew(list []string, s string) []string {
	for _, v := range list {
		if v == s {
			return list
		}
	}
	return append(list, s)
}
