package notify

// HasSharding is hasSharding, for the tests.
var HasSharding = hasSharding
