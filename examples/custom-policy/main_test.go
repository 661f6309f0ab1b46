package custompolicy

import (
	"flag"
	"testing"

	"go.uber.org/goleak"
)

var fixed = flag.Bool("fixed", false, "run backoff-fifo with its race fixed: it asks the view on every offer")

func TestMain(m *testing.M) {
	flag.Parse()
	Fixed = *fixed
	goleak.VerifyTestMain(m)
}
