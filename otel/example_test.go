package otel_test

import (
	"context"
	"fmt"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/otel"
	"github.com/lockkit/lockkit/reentrant"
)

// Instrument a Client, take and release a lock, and print what was
// recorded. A real program gives a MeterProvider with an exporter, or sets
// the global one and calls Instrument without options; here a manual
// reader shows the measurements (durations vary, so only their count is
// printed).
func ExampleInstrument() {
	mr, _ := miniredis.Run()
	defer mr.Close()
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()

	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())

	locks := lockkit.New(rdb)
	defer locks.Close()
	if err := otel.Instrument(locks, otel.WithMeterProvider(mp)); err != nil {
		panic(err)
	}

	ctx := context.Background()
	m := reentrant.New(locks, "orders:42")
	if err := m.Lock(ctx); err != nil {
		panic(err)
	}
	_ = m.Unlock(ctx)

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		panic(err)
	}
	for _, line := range lines(rm) {
		fmt.Println(line)
	}
	// Output:
	// lockkit.lock.acquisitions{lock.contended=false,lock.kind=reentrant,lock.reentry=false} 1 {acquisition}
	// lockkit.lock.held{lock.kind=reentrant} 0 {hold}
	// lockkit.lock.hold.duration{lock.kind=reentrant,outcome=released} count=1 s
}
