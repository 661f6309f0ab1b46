package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/actors"
	"clusteremu/cluster"
)

// tasks.csv lists the attempts that ended in the order they ended, as
// the run streams them, then those the run cut off, in attempt order.
func TestTasksListAttemptsAsTheyEndThenTheCutOff(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	run([]string{"run", "--quiet", "--until", "2m", "--set", "run.slowdown=false", "--out", dir}, &out, &errs)
	rows := readCSV(t, filepath.Join(dir, "tasks.csv"))[1:]
	first := slices.IndexFunc(rows, func(r map[string]string) bool { return r["outcome"] == "cut-off" })
	require.Positive(t, first, "attempts ended, and some were cut off")
	ended, cut := rows[:first], rows[first:]
	for i := 1; i < len(ended); i++ {
		assert.LessOrEqual(t, seconds(t, ended[i-1]["end"]), seconds(t, ended[i]["end"]), "row %d", i+1)
	}
	assert.False(t, slices.IsSortedFunc(ended, compareTaskRows), "the ended ones are not in attempt order")
	for _, r := range cut {
		assert.Equal(t, "cut-off", r["outcome"])
	}
	assert.True(t, slices.IsSortedFunc(cut, compareTaskRows), "the cut-off ones are in attempt order")
}

// A links.csv written window by window reads back, for the links asked,
// exactly the bytes each carried in each window, 0 where it has no row;
// the busiest links besides the racks' come by their utilisation over the
// run.
func TestLinkLogReadsTheBusiestLinksBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "links.csv")
	l, err := createLinkLog(path)
	require.NoError(t, err)
	l.name(cluster.LinkSeries{
		Names:    []string{"host 0 disk-read", "rack 0 uplink", "host 1 nic-up", "", "core", "host 2 cpu"},
		Capacity: []float64{100, 1000, 10, 0, 5000, 4},
	})
	s := time.Second
	samples := []actors.LinkSample{
		{From: 0, To: s + 7, Carried: []int64{50, 500, 0, 0, 0, 1}},
		{From: s + 7, To: 2*s + 300*time.Microsecond, Carried: []int64{0, 0, 10, 0, 2500, 0}},
		{From: 2*s + 300*time.Microsecond, To: 2*s + 500*time.Millisecond, Carried: []int64{25, 400, 5, 0, 0, 2}},
	}
	for _, smp := range samples {
		l.sampled(smp)
	}
	require.NoError(t, l.file.finish())
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, `from,to,link,capacity,carried,utilisation
0.000000,1.000000,host 0 disk-read,100,50,0.500000
0.000000,1.000000,rack 0 uplink,1000,500,0.500000
0.000000,1.000000,host 2 cpu,4,1,0.250000
1.000000,2.000300,host 1 nic-up,10,10,0.999700
1.000000,2.000300,core,5000,2500,0.499850
2.000300,2.500000,host 0 disk-read,100,25,0.500300
2.000300,2.500000,rack 0 uplink,1000,400,0.800480
2.000300,2.500000,host 1 nic-up,10,5,1.000600
2.000300,2.500000,host 2 cpu,4,2,1.000600
`, string(raw))

	busiest := l.busiest(2)
	assert.Equal(t, []int{2, 5}, busiest, "host 1 nic-up (2.0003 summed over the windows), host 2 cpu (1.2506); host 0 disk-read (1.0003) is third")
	series, err := l.series(path, busiest)
	require.NoError(t, err)
	assert.Equal(t, [][]int64{{0, 10, 5}, {1, 0, 2}}, series)
	assert.Equal(t, []int{1, 4}, l.racks, "the uplink and the core")
	assert.InDelta(t, 2500/(5000*1.000299993), l.rackUse(1, 1), 1e-12, "the core's second window")
}

// Each link counter of the trace holds, from each window's start, the
// utilisation links.csv gives that link in that window, 0 where it has
// no row: the rack links' from what the run kept, the busiest others'
// from links.csv read back.
func TestTraceLinkCountersAgreeWithLinksCSV(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"run", "--quiet", writeScenario(t, smallScenario), "--set", "run.slowdown=false", "--out", dir}, &out, &errs), errs.String())
	type key struct{ link, from string }
	use := map[key]float64{}
	for _, row := range readCSV(t, filepath.Join(dir, "links.csv"))[1:] {
		use[key{row["link"], row["from"]}] = seconds(t, row["utilisation"])
	}
	raw, err := os.ReadFile(filepath.Join(dir, "trace.json"))
	require.NoError(t, err)
	var doc struct {
		TraceEvents []checkedEvent `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	counters := map[string][]checkedEvent{}
	for _, e := range doc.TraceEvents {
		if *e.Ph == "C" && strings.HasSuffix(e.Name, " utilisation") {
			counters[strings.TrimSuffix(e.Name, " utilisation")] = append(counters[strings.TrimSuffix(e.Name, " utilisation")], e)
		}
	}
	others := 0
	for link, evs := range counters {
		if !isRackLink(link) {
			others++
		}
		require.Greater(t, len(evs), 1, link)
		for _, e := range evs[:len(evs)-1] { // the last closes the track at 0
			from := strconv.FormatFloat(*e.Ts/1e6, 'f', 6, 64)
			assert.InDelta(t, use[key{link, from}], e.Args["value"], 1e-6, "%s from %s", link, from)
		}
	}
	assert.Equal(t, busiestLinks, others, "the busiest links besides the racks'")
}
