package workload

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestCPUCost(t *testing.T) {
	// 40 ms per MiB over a 128 MiB block is 5.12 s.
	assert.Equal(t, 5120*time.Millisecond, PerMiB(40*time.Millisecond).Time(128<<20))
	assert.Equal(t, time.Duration(0), CPUCost(0).Time(1<<30))
}

func TestMapCount(t *testing.T) {
	const block = 128 << 20
	tests := []struct {
		spec JobSpec
		want int
	}{
		{JobSpec{InputBytes: 0}, 1},
		{JobSpec{InputBytes: 1}, 1},
		{JobSpec{InputBytes: block}, 1},
		{JobSpec{InputBytes: block + 1}, 2},
		{JobSpec{InputBytes: 10 * block}, 10},
		{JobSpec{InputBytes: 10 * block, Maps: 3}, 3},
		{JobSpec{InputBytes: math.MaxInt64}, 1 << 36}, // rounded up without overflowing
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.spec.MapCount(block), "%+v", tt.spec)
	}
}

func TestValidate(t *testing.T) {
	ok := JobSpec{InputBytes: 1 << 30, Reduces: 2, ShuffleBytes: 1 << 20, SlowStart: 0.05}
	assert.NoError(t, ok.Validate())
	tests := []struct {
		mutate func(*JobSpec)
		want   string
	}{
		{func(j *JobSpec) { j.Submit = -time.Second }, "submit = -1s: must be ≥ 0"},
		{func(j *JobSpec) { j.Priority = 5 }, "priority = 5: must be 0 (very high) to 4 (very low); 2 is normal"},
		{func(j *JobSpec) { j.Weight = math.NaN() }, "weight = NaN: must be a finite number ≥ 0"},
		{func(j *JobSpec) { j.InputBytes = -1 }, "input_bytes = -1: must be ≥ 0"},
		{func(j *JobSpec) { j.Maps = -2 }, "maps = -2: must be ≥ 0 (0 = one per block)"},
		{func(j *JobSpec) { j.Reduces = -1 }, "reduces = -1: must be ≥ 0"},
		{func(j *JobSpec) { j.OutputBytes = -1 }, "output_bytes = -1: must be ≥ 0"},
		{func(j *JobSpec) { j.MapCPU = CPUCost(math.Inf(1)) }, "map_cpu = +Inf: must be a cost ≥ 0 and at most 1e6 s per MiB"},
		{func(j *JobSpec) { j.ReduceCPU = -1 }, "reduce_cpu = -1: must be a cost ≥ 0 and at most 1e6 s per MiB"},
		{func(j *JobSpec) { j.SlowStart = 1.5 }, "slow_start = 1.5: must be in [0, 1]"},
		{func(j *JobSpec) { j.Reduces = 0 }, "shuffle_bytes = 1048576: a job without reduces has no shuffle"},
		{func(j *JobSpec) { j.InputFile, j.InputFiles = "a", halves("b", "c") }, `input_file = "a": a job reads either one file or several`},
		{func(j *JobSpec) { j.Maps, j.InputFiles = 8, halves("b", "c") }, "maps = 8: a job over several files has a map a block (maps = 0)"},
		{func(j *JobSpec) { j.InputCoV, j.InputFiles = 1, halves("b", "c") }, "input_cov = 1: a job over several files reads them split evenly"},
		{func(j *JobSpec) { j.InputFiles = halves("b", "") }, "input_files[1]: a file needs a name"},
		{func(j *JobSpec) { j.InputFiles = halves("b", "b") }, `input_files[1] "b": named twice`},
		{func(j *JobSpec) { j.InputFiles = []FilePart{{"b", 1 << 30}, {"c", 0}} }, `input_files[1] "c" = 0 bytes: must be > 0 (and the sum at most 2^63-1)`},
		{func(j *JobSpec) { j.InputFiles = []FilePart{{"b", 1 << 29}} }, "input_bytes = 1073741824: must be the input files' sum, 536870912"},
	}
	for _, tt := range tests {
		j := ok
		tt.mutate(&j)
		assert.EqualError(t, j.Validate(), tt.want)
	}
	two := ok
	two.InputFiles = halves("b", "c")
	assert.NoError(t, two.Validate())
	two.InputBytes, two.InputFiles = 4<<20, []FilePart{{"b", 1 << 20}, {"c", 3 << 20}}
	assert.Equal(t, 3, two.MapCount(2<<20), "2 MiB blocks: one of b, two of c (4 MiB in one file: two)")
}

// halves splits TestValidate's 1 GiB input over two files.
func halves(a, b string) []FilePart { return []FilePart{{a, 1 << 29}, {b, 1 << 29}} }

func TestShareSplitsExactly(t *testing.T) {
	// 10 bytes over 3 parts: 3, 3, 4, adding up to 10; and a part of an
	// even split is exact.
	assert.Equal(t, []int64{3, 3, 4}, []int64{Share(10, 3, 0), Share(10, 3, 1), Share(10, 3, 2)})
	assert.Equal(t, int64(5), Share(20, 4, 2))
	var sum int64
	for i := range 7 {
		sum += Share(1<<40+3, 7, i)
	}
	assert.Equal(t, int64(1<<40+3), sum)
}
