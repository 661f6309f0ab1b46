package scenarios

import (
	"cmp"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"clusteremu/actors"
	"clusteremu/cluster"
	"clusteremu/policies/sched"
	"clusteremu/policies/straggler"
	"clusteremu/units"
	"clusteremu/workload"
)

// DefaultScenario is the scenario `clusteremu run` runs without a file.
//
//go:embed examples/default.toml
var DefaultScenario []byte

// File is the TOML schema of a scenario. Every table is optional; a key a
// file leaves out keeps the default of cluster.DefaultConfig.
type File struct {
	Run       cluster.RunOptions     `toml:"run"`
	Cluster   actors.ClusterConfig   `toml:"cluster"`
	HDFS      actors.HDFSConfig      `toml:"hdfs"`
	Heartbeat actors.HeartbeatConfig `toml:"heartbeat"`
	Chaos     cluster.Chaos          `toml:"chaos"`
	// Scheduler holds the policy's name and tick and the policy's own
	// parameters, decoded once the name is known.
	Scheduler map[string]any     `toml:"scheduler"`
	Tasks     actors.TasksConfig `toml:"tasks"`
	// Cache is [cache], nil when the file has none, so a resolved
	// scenario without a cache says nothing of one.
	Cache *actors.CacheConfig `toml:"cache"`
	// Replication is [replication], nil when the file has none.
	Replication *actors.ReplicationConfig `toml:"replication"`
	// IntermediateLoss is [intermediate_loss], nil when the file has
	// none.
	IntermediateLoss *actors.IntermediateLossConfig `toml:"intermediate_loss"`
	// RackTraffic is [rack_traffic], nil when the file has none.
	RackTraffic *actors.RackTrafficConfig `toml:"rack_traffic"`
	// QoS is [qos], nil when the file has none.
	QoS *QoSTable `toml:"qos"`
	// Stragglers are per-attempt slowdowns and busy periods.
	Stragglers actors.StragglersConfig `toml:"stragglers"`
	// Speculation holds the speculation policy's name and its own
	// parameters, decoded once the name is known; Blacklist keeps
	// straggling nodes out.
	Speculation map[string]any         `toml:"speculation"`
	Blacklist   actors.BlacklistConfig `toml:"blacklist"`
	Cloning     actors.CloningConfig   `toml:"cloning"`
	Workload    WorkloadTable          `toml:"workload"`
	Fault       []FaultTable           `toml:"fault"`
	Expect      []Expectation          `toml:"expect"`
	Reproduce   ReproduceTable         `toml:"reproduce"`

	// slotKeys: the file or an override sets cluster.map_slots,
	// cluster.reduce_slots, which cluster.containers then does not
	// replace.
	slotKeys [2]bool
}

// ReproduceTable is [reproduce], for scenarios that reproduce a paper's
// result: source cites the paper and the figure or table; reduced lists
// the key=value overrides of the smaller form CI runs (`clusteremu
// reproduce --reduced`); seeds, when given, runs every variant once per
// seed (both the workload and the schedule seed) and checks the rows on
// the mean of each metric over the seeds, as papers average repetitions.
type ReproduceTable struct {
	Source  string   `toml:"source"`
	Reduced []string `toml:"reduced"`
	Seeds   []uint64 `toml:"seeds"`
}

// WorkloadTable is [workload]: any number of streams of each kind, each a
// client of its own; job IDs follow the order synthetic, swim, jobs,
// recurring, closed.
type WorkloadTable struct {
	Synthetic []SyntheticStream `toml:"synthetic"`
	SWIM      []SWIMStream      `toml:"swim"`
	Jobs      []JobsStream      `toml:"jobs"`
	Closed    []ClosedStream    `toml:"closed"`
	Recurring []RecurringStream `toml:"recurring"`
	// QoS are streams of QoS clients, which post tasks to the nodes
	// rather than jobs to the coordinator.
	QoS []QoSStream `toml:"qos"`
}

// Scenario is a decoded, validated scenario.
type Scenario struct {
	Name      string
	Config    cluster.Config
	Expect    []Expectation
	Reproduce ReproduceTable
	file      File
	dir       string
}

// WithSeed returns the scenario with both seeds set to seed and its
// workload generated again from it. The run's other settings stay.
func (s *Scenario) WithSeed(seed uint64) (*Scenario, error) {
	f := s.file
	f.Run.Seed, f.Run.ScheduleSeed = seed, seed
	cfg, errs := f.config(s.dir)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	cfg.Run.Until = s.Config.Run.Until
	out := *s
	out.Config, out.file = cfg, f
	return &out, nil
}

// LoadFile reads and validates a scenario file.
func LoadFile(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Load(path, data, filepath.Dir(path))
}

// Load decodes and validates a scenario named name; dir resolves relative
// trace paths. Every unknown key, every wrong type or unit and every
// invalid value of the file are reported together, each with its line
// and column, in file order; a syntax error is reported alone.
func Load(name string, data []byte, dir string) (*Scenario, error) {
	doc, err := Parse(name, data)
	if err != nil {
		return nil, err
	}
	f := defaults()
	if _, ok := doc.tree["cache"].(map[string]any); ok {
		c := actors.DefaultCacheConfig()
		f.Cache = &c
	}
	if _, ok := doc.tree["replication"].(map[string]any); ok {
		r := actors.DefaultReplicationConfig()
		f.Replication = &r
	}
	if _, ok := doc.tree["intermediate_loss"].(map[string]any); ok {
		l := actors.DefaultIntermediateLoss()
		f.IntermediateLoss = &l
	}
	if _, ok := doc.tree["rack_traffic"].(map[string]any); ok {
		t := actors.DefaultRackTraffic()
		f.RackTraffic = &t
	}
	var found ErrorList
	if err := doc.Decode(&f); err != nil && !errors.As(err, &found) {
		return nil, err
	}
	if c, ok := doc.tree["cluster"].(map[string]any); ok {
		_, f.slotKeys[0] = c["map_slots"]
		_, f.slotKeys[1] = c["reduce_slots"]
	}
	if f.Cache != nil {
		for i := range f.Cache.Preload {
			f.Cache.Preload[i].Pick = cmp.Or(f.Cache.Preload[i].Pick, actors.PickFirst)
		}
	}
	// f holds every key that decoded: the rest of the file is checked
	// too, so one pass reports every error.
	sc := &Scenario{Name: name, Expect: f.Expect, Reproduce: f.Reproduce, file: f, dir: dir}
	var errs []error
	sc.Config, errs = f.config(dir)
	for i, set := range f.Reproduce.Reduced {
		if k, _, ok := strings.Cut(set, "="); !ok || k == "" {
			errs = append(errs, Invalid(fmt.Sprintf("reproduce.reduced[%d]", i), set, "must be key=value"))
		}
	}
	for i := range f.Expect {
		errs = append(errs, Prefix(fmt.Sprintf("expect[%d]", i), f.Expect[i].Validate()))
	}
	errs = append(errs, poolChecks(f.Expect, sc.Config)...)
	errs = append(errs, f.queueChecks(sc.Config)...)
	errs = append(errs, f.endCheck())
	errs = withoutEchoes(errs, flatten(found))
	found = append(found, f.senseChecks(doc, name)...)
	var located ErrorList
	if err := errors.Join(errs...); err != nil {
		errors.As(doc.Locate(err), &located)
	}
	all := append(found, located...)
	if len(all) == 0 {
		all = f.workloadCheck(name)
	}
	if len(all) > 0 {
		return nil, all.err()
	}
	return sc, nil
}

// DefaultStallAfter is a scenario's run.stall_after unless it says: a
// run that stops making progress ends within the hour.
const DefaultStallAfter = units.Duration(time.Hour)

// defaults are cluster.DefaultConfig written as tables, with the stall
// watchdog on.
func defaults() File {
	d := cluster.DefaultConfig()
	return File{
		Run:     cluster.RunOptions{Clock: cluster.Virtual, Slowdown: true, StallAfter: DefaultStallAfter},
		Cluster: d.Cluster, HDFS: d.HDFS, Heartbeat: d.Heartbeat, Chaos: d.Chaos, Tasks: d.Tasks, Stragglers: d.Stragglers,
		Scheduler:   map[string]any{"name": d.Scheduler.Name, "tick": d.Scheduler.Tick.String()},
		Speculation: map[string]any{"name": d.Speculation.Name},
		Blacklist:   d.Blacklist,
		Cloning:     d.Cloning,
	}
}

// config turns the tables into a cluster configuration and collects every
// invalid value as a FieldError keyed by its path in the file.
func (f *File) config(dir string) (cluster.Config, []error) {
	var errs []error
	c := cluster.DefaultConfig()
	c.Run, c.Cluster, c.HDFS, c.Heartbeat, c.Chaos, c.Tasks = f.Run, f.Cluster, f.HDFS, f.Heartbeat, f.Chaos, f.Tasks
	if c.Cluster.Containers > 0 {
		// A container runs either kind: the node's slots of each kind
		// are its containers, of which it runs that many in all.
		if !f.slotKeys[0] {
			c.Cluster.MapSlots = c.Cluster.Containers
		}
		if !f.slotKeys[1] {
			c.Cluster.ReduceSlots = c.Cluster.Containers / c.Cluster.ReduceSize()
		}
	}
	c.Cache, c.Replication, c.IntermediateLoss, c.RackTraffic = f.Cache, f.Replication, f.IntermediateLoss, f.RackTraffic
	c.QoS = f.qosConfig()
	c.Stragglers, c.Blacklist, c.Cloning = f.Stragglers, f.Blacklist, f.Cloning
	bad := errors.Join(f.scheduler(&c), f.speculation(&c))
	errs = append(errs, bad)
	var ferrs []error
	c.Faults, c.Rules, ferrs = faults(f.Fault, &c, c.Run.Seed)
	errs = append(errs, ferrs...)
	if err := c.Validate(); err != nil {
		errs = append(errs, withoutEchoes(fieldErrors(err), flatten(bad))...)
	}
	var werrs []error
	c.Workload, c.Loads, werrs = f.Workload.generate(dir, c)
	errs = append(errs, werrs...)
	for i := range f.Workload.Closed {
		workers, err := f.Workload.Closed[i].workerJobs()
		if err != nil {
			errs = append(errs, Prefix(fmt.Sprintf("workload.closed[%d]", i), err))
		}
		c.Closed = append(c.Closed, workers...)
	}
	if errors.Join(errs...) == nil {
		// The jobs against the cluster: tasks no slot could run.
		if err := c.ValidateWorkload(); err != nil {
			errs = append(errs, fieldErrors(err)...)
		}
		if !slices.ContainsFunc(c.Faults, func(f actors.Fault) bool { return f.Busy }) { // else listed (cutFaults)
			c.Faults = append(c.Faults, c.Stragglers.BusyFaults(&c.Cluster, busySpan(&c), c.Run.Seed, c.Faults)...)
		}
	}
	return c, errs
}

// busySpan is the span busy periods are drawn over: the run's deadline,
// or the workload's last submission plus an hour, which a run rarely
// outlasts (a busy period past the run's end never fires).
func busySpan(c *cluster.Config) time.Duration {
	if c.Run.Until > 0 {
		return c.Run.Until.Std()
	}
	last := time.Duration(0)
	for _, j := range c.Jobs() {
		last = max(last, j.Submit)
	}
	return last + time.Hour
}

// scheduler decodes [scheduler]: the policy's name, tick and max_running
// (the admission cap, for any policy), then every
// other key into the named policy's own parameters (sched.NewParams),
// through the strict decoder, so that every unknown or mistyped parameter
// is reported at its key like any other; c.Validate runs the policy's
// checks of the values that decoded. The table is decoded from the File,
// which --set may have changed, so its errors have no position until
// Load locates them.
func (f *File) scheduler(c *cluster.Config) error {
	doc := treeDocument(map[string]any{"scheduler": f.Scheduler})
	params := slices.DeleteFunc(slices.Sorted(maps.Keys(f.Scheduler)), func(k string) bool { return k == "name" || k == "tick" || k == "max_running" })
	var errs ErrorList
	errors.As(doc.DecodeAt("scheduler", &c.Scheduler, params...), &errs)
	p, err := sched.NewParams(c.Scheduler.Name)
	if err != nil || slices.ContainsFunc(errs, func(e *Error) bool { return e.Key == "scheduler.name" }) {
		return errs.err() // c.Validate reports an unknown name
	}
	var bad ErrorList
	errors.As(doc.DecodeAt("scheduler", p, "name", "tick", "max_running"), &bad)
	c.Scheduler.Params = p
	return append(errs, bad...).err()
}

// speculation decodes [speculation] as scheduler decodes [scheduler]:
// the policy's name, then every other key into its own parameters
// (straggler.NewParams). early, Early-LATE's switch, is refused with a
// word of why under any other policy.
func (f *File) speculation(c *cluster.Config) error {
	doc := treeDocument(map[string]any{"speculation": f.Speculation})
	params := slices.DeleteFunc(slices.Sorted(maps.Keys(f.Speculation)), func(k string) bool { return k == "name" })
	var errs ErrorList
	errors.As(doc.DecodeAt("speculation", &c.Speculation, params...), &errs)
	p, err := straggler.NewParams(c.Speculation.Name)
	if err != nil || slices.ContainsFunc(errs, func(e *Error) bool { return e.Key == "speculation.name" }) {
		return errs.err() // c.Validate reports an unknown name
	}
	skip := []string{"name"}
	var bad []error
	if early, given := f.Speculation["early"]; given && c.Speculation.Name != "late" {
		skip = append(skip, "early")
		bad = append(bad, Invalid("speculation.early", early, `applies only to name = "late" (Early-LATE is LATE acting early)`))
	}
	var decoded ErrorList
	errors.As(doc.DecodeAt("speculation", p, skip...), &decoded)
	c.Speculation.Params = p
	return errors.Join(append(append([]error{errs.err()}, bad...), decoded.err())...)
}

// fieldErrors turns the configuration's errors into FieldErrors keyed by
// their scenario path.
func fieldErrors(err error) []error {
	var out []error
	for _, e := range flatten(err) {
		var ce *cluster.FieldError
		if errors.As(e, &ce) {
			e = Invalid(ce.Key, ce.Value, "%s", ce.Msg)
		}
		out = append(out, e)
	}
	return out
}

// generate builds every stream's jobs, in the order of WorkloadTable, and
// lists the streams whose arrivals the run draws (SWIMStream's load).
func (w *WorkloadTable) generate(dir string, c cluster.Config) ([][]workload.JobSpec, []cluster.LoadStream, []error) {
	var streams [][]workload.JobSpec
	var loads []cluster.LoadStream
	var errs []error
	add := func(key, name string, s Stream, seed uint64) {
		if err := s.Validate(); err != nil {
			errs = append(errs, Prefix(key, err))
			return
		}
		jobs, err := s.Generate(Env{Dir: dir, Seed: seed, BlockSize: int64(c.HDFS.BlockSize), Name: name, Nodes: c.Nodes()})
		if err != nil {
			errs = append(errs, Prefix(key, err))
			return
		}
		if w, ok := s.(weighted); ok {
			w.jobWeights().draw(jobs, c.Run.Seed, key)
		}
		if p, ok := s.(prioritised); ok {
			p.jobPriority().give(jobs)
		}
		if swim, ok := s.(*SWIMStream); ok {
			if l, ok := swim.LoadStream(key, len(streams)); ok {
				loads = append(loads, l)
			}
		}
		streams = append(streams, jobs)
	}
	for i := range w.Synthetic {
		s := w.Synthetic[i]
		if s.Load > 0 && s.Slots == 0 {
			if n := c.Nodes(); n < 1 || n > actors.MaxNodes || !slotsInRange(&c.Cluster) {
				continue // the load is of a cluster that is invalid, as reported
			}
			s.Slots = c.Slots()[0]
		}
		add(fmt.Sprintf("workload.synthetic[%d]", i), fmt.Sprintf("s%d", i), &s, streamSeed(c.Run.Seed, i))
	}
	for i := range w.SWIM {
		add(fmt.Sprintf("workload.swim[%d]", i), "", &w.SWIM[i], c.Run.Seed)
	}
	for i := range w.Jobs {
		add(fmt.Sprintf("workload.jobs[%d]", i), fmt.Sprintf("j%d", i), &w.Jobs[i], c.Run.Seed)
	}
	for i := range w.Recurring {
		add(fmt.Sprintf("workload.recurring[%d]", i), fmt.Sprintf("r%d", i), &w.Recurring[i], c.Run.Seed)
	}
	return streams, loads, errs
}

// streamSeed is the seed synthetic stream i draws from: the run's for the
// first, and one mixed from it and i for each other, so that streams of
// equal parameters are independent (the same seed would draw the same
// gaps and sizes for each: arrivals scaled copies of one another).
func streamSeed(seed uint64, i int) uint64 {
	if i == 0 {
		return seed
	}
	return rand.New(rand.NewPCG(seed, 0x73747265616d<<8|uint64(i))).Uint64() // "stream"
}

// slotsInRange reports whether every node's map slots are within what a
// node may have, so that their sum means something.
func slotsInRange(c *actors.ClusterConfig) bool {
	in := func(n int) bool { return n >= 0 && n <= actors.MaxSlotsPerNode }
	ok := in(c.MapSlots)
	for _, k := range c.Classes {
		ok = ok && (k.MapSlots == nil || in(*k.MapSlots))
	}
	return ok
}
