package cluster

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/actors"
)

// Event is one delivery of a message, in delivery order. Step numbers
// the deliveries of a deterministic run from 1, system messages counted,
// so a step names one delivery across runs that agree up to it.
type Event struct {
	Step     uint64        `json:"step"`
	At       time.Duration `json:"at"`
	Sender   string        `json:"sender"` // "clock" for timers, "root" from outside the actors
	Receiver string        `json:"receiver"`
	Type     string        `json:"type"`
}

// Choice is one scheduling decision of a deterministic run: which ready
// actor received the next message (user or system). Its address, stable
// across runs that agree up to it, is the emulated instant, the receiver
// and the number of messages that receiver had received before.
type Choice struct {
	At       time.Duration `json:"at"`
	Receiver string        `json:"receiver"`
	Count    uint64        `json:"count"`
}

// executor runs every actor of a deterministic run on one goroutine. Each
// step delivers one message from a ready mailbox chosen with the schedule
// seed (or by a replayed choice log); when no mailbox is ready, the clock
// jumps to the earliest timer and posts every timer due then, in the order
// they were set.
type executor struct {
	sys      *actor.ActorSystem
	rng      *rand.Rand // the order of same-instant messages
	chaosRng *rand.Rand // [chaos] delays
	course   course
	now      time.Duration
	timers   *timers
	ready    []*mailbox
	running  string // the actor being run, for event senders
	handling any    // the message it handles, for failure reports

	onChoice func(Choice) // nil: choices are not recorded
	onEvent  func(Event)  // nil: deliveries are not recorded
	replay   []Choice     // choices to follow; past its end, the seed decides
	diverged int          // replayed choices that could not be followed

	// all is every actor's mailbox in spawn order, kept only for a run
	// that stops at a step (StepState): a stopped actor's would hold its
	// state for the rest of the run.
	all     []*mailbox
	keepAll bool
	pct     *pctState // nil: same-instant choices are uniform draws
	steps   uint64
	failed  error
	shown   atomic.Int64 // the emulated time, for readers on other goroutines
}

func newExecutor(opts RunOptions) *executor {
	return &executor{
		rng:      rand.New(rand.NewPCG(opts.ScheduleSeed, 0x636c75737465726d)),
		chaosRng: rand.New(rand.NewPCG(opts.ScheduleSeed, 0x6368616f73)),
		course:   newCourse(opts),
		timers:   newTimers(),
		running:  "root",
		keepAll:  opts.StopAt > 0,
		pct:      newPCT(opts),
	}
}

// nextSeq numbers a posted message.
func (ex *executor) nextSeq() uint64 {
	ex.course.pending++
	return ex.course.pending
}

func (ex *executor) newMailbox() actor.Mailbox {
	m := &mailbox{ex: ex, ready: -1}
	if ex.keepAll {
		ex.all = append(ex.all, m)
	}
	return m
}

func (ex *executor) markReady(m *mailbox) {
	if m.ready < 0 {
		m.ready = len(ex.ready)
		ex.ready = append(ex.ready, m)
	}
}

func (ex *executor) unready(m *mailbox) {
	last := ex.ready[len(ex.ready)-1]
	ex.ready[m.ready] = last
	last.ready = m.ready
	ex.ready = ex.ready[:len(ex.ready)-1]
	m.ready = -1
}

// step delivers one message; it reports false when no mailbox is ready.
func (ex *executor) step() bool {
	if len(ex.ready) == 0 {
		return false
	}
	m := ex.choose()
	ex.steps++
	if ex.pct != nil {
		ex.pct.stepped(ex.steps, m)
	}
	if ex.onChoice != nil {
		ex.onChoice(Choice{At: ex.now, Receiver: m.name, Count: m.steps})
	}
	m.steps++
	prev := ex.running
	ex.running = m.name
	m.deliver()
	ex.running = prev
	if m.empty() && m.ready >= 0 {
		ex.unready(m)
	}
	return true
}

// choose picks the next mailbox: the replayed choice when it names a
// ready actor, otherwise the pinned course's or one drawn with the
// schedule seed. A lone ready mailbox costs no draw.
func (ex *executor) choose() *mailbox {
	if i := ex.steps; i < uint64(len(ex.replay)) {
		want := ex.replay[i]
		for _, m := range ex.ready {
			if m.name == want.Receiver && want.At == ex.now {
				return m
			}
		}
		ex.diverged++
	}
	switch {
	case len(ex.ready) == 1:
		return ex.ready[0]
	case ex.course.pinned != nil:
		return ex.pinnedChoice()
	}
	return ex.drawChoice()
}

// delivered logs a message about to be handled; system messages
// (protoactor's lifecycle: Started, Stop, Watch, Terminated...) come from
// "system".
func (ex *executor) delivered(m *mailbox, sender string, msg any) {
	if ex.onEvent != nil {
		ex.onEvent(Event{Step: ex.steps, At: ex.now, Sender: sender, Receiver: m.name, Type: typeName(msg)})
	}
}

func (ex *executor) panicked(m *mailbox, msg any, r any) {
	if ex.failed == nil {
		ex.failed = fmt.Errorf("actor %s panicked at %v (step %d) handling %s: %v", m.name, ex.now, ex.steps, typeName(msg), r)
	}
}

// fireDue advances the clock to the earliest timer, no further than limit,
// and posts every timer due then. It reports false when no timer is due by
// limit.
func (ex *executor) fireDue(limit time.Duration) bool {
	at, ok := ex.timers.next()
	if !ok || at > limit {
		return false
	}
	if at > ex.now {
		ex.now = at
		ex.shown.Store(int64(at))
	}
	prev := ex.running
	ex.running = "clock"
	// A timer aimed at a stopped actor reaches protoactor's dead-letter
	// process; the runtime counts it as dropped, not as a dead letter,
	// because the clock was sending.
	ex.timers.popDue(ex.now, func(t *timer) { ex.sys.Root.Send(t.to, t.msg) })
	ex.running = prev
	return true
}

func typeName(msg any) string {
	if msg == nil {
		return "nil"
	}
	t := reflect.TypeOf(msg)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.String()
}

// The clock of a deterministic run: it reads and sets timers on the
// executor, which only its own goroutine touches.

func (ex *executor) Now() time.Duration { return ex.now }

func (ex *executor) After(d time.Duration, to *actor.PID, msg any) actors.TimerID {
	return ex.timers.add(ex.now+max(d, 0), 0, to, msg)
}

func (ex *executor) At(t time.Duration, to *actor.PID, msg any) actors.TimerID {
	return ex.timers.add(max(t, ex.now), 0, to, msg)
}

func (ex *executor) Every(first, period time.Duration, to *actor.PID, msg any) actors.TimerID {
	if period <= 0 {
		panic(fmt.Sprintf("cluster: Every with period %v: must be > 0", period))
	}
	return ex.timers.add(max(first, ex.now), period, to, msg)
}

func (ex *executor) Cancel(id actors.TimerID) bool { return ex.timers.cancel(id) }

var _ actors.Clock = (*executor)(nil)
