package cluster

import (
	"github.com/asynkron/protoactor-go/actor"
)

// envelope is a queued user message and the actor that was running when
// it was posted ("" when posted from outside any actor).
type envelope struct {
	msg    any
	sender string
	seq    uint64 // the run's post order
}

// sysEnvelope is a queued system message.
type sysEnvelope struct {
	msg any
	seq uint64
}

// queue is a FIFO that reuses its backing array once drained.
type queue[T any] struct {
	items []T
	head  int
}

func (q *queue[T]) push(v T) { q.items = append(q.items, v) }
func (q *queue[T]) len() int { return len(q.items) - q.head }
func (q *queue[T]) pop() T {
	var zero T
	v := q.items[q.head]
	q.items[q.head] = zero
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return v
}

// mailbox is the deterministic executor's protoactor Mailbox. Posting only
// queues the message and marks the mailbox ready; the executor delivers one
// message per step, system messages first, on its own goroutine.
type mailbox struct {
	ex      *executor
	name    string
	invoker actor.MessageInvoker
	system  queue[sysEnvelope]
	user    queue[envelope]
	ready   int    // index in the executor's ready set, -1 when absent
	steps   uint64 // messages of any kind delivered
	prio    uint64 // its PCT priority, 0 until drawn (pct.go)
}

var _ actor.Mailbox = (*mailbox)(nil)

// PostUserMessage implements actor.Mailbox.
func (m *mailbox) PostUserMessage(msg any) {
	m.user.push(envelope{msg: msg, sender: m.ex.running, seq: m.ex.nextSeq()})
	m.ex.markReady(m)
}

// PostSystemMessage implements actor.Mailbox.
func (m *mailbox) PostSystemMessage(msg any) {
	m.system.push(sysEnvelope{msg: msg, seq: m.ex.nextSeq()})
	m.ex.markReady(m)
}

// RegisterHandlers implements actor.Mailbox; the dispatcher is not used.
func (m *mailbox) RegisterHandlers(invoker actor.MessageInvoker, _ actor.Dispatcher) {
	m.invoker = invoker
	if ctx, ok := invoker.(actor.Context); ok {
		m.name = ctx.Self().Id
	}
}

// Start implements actor.Mailbox.
func (m *mailbox) Start() {}

// UserMessageCount implements actor.Mailbox.
func (m *mailbox) UserMessageCount() int { return m.user.len() }

func (m *mailbox) empty() bool { return m.system.len() == 0 && m.user.len() == 0 }

// headSeq is the post order of the message deliver would hand over next.
func (m *mailbox) headSeq() uint64 {
	if m.system.len() > 0 {
		return m.system.items[m.system.head].seq
	}
	return m.user.items[m.user.head].seq
}

// deliver hands one message to the actor: a system message if any is
// queued, else a user message. A panic in the handler fails the run with
// the actor, the message type and the emulated time; the actor receives
// nothing more.
func (m *mailbox) deliver() {
	if m.system.len() > 0 {
		msg := m.system.pop().msg
		switch msg.(type) {
		case *actor.SuspendMailbox, *actor.ResumeMailbox:
			return // failures never reach protoactor's supervision here
		}
		m.ex.delivered(m, "system", msg)
		m.invoke(msg, true)
		return
	}
	env := m.user.pop()
	m.ex.delivered(m, env.sender, env.msg)
	m.invoke(env.msg, false)
}

func (m *mailbox) invoke(msg any, system bool) {
	defer func() {
		if r := recover(); r != nil {
			m.ex.panicked(m, msg, r)
		}
	}()
	prev := m.ex.handling
	m.ex.handling = msg
	if system {
		m.invoker.InvokeSystemMessage(msg)
	} else {
		m.invoker.InvokeUserMessage(msg)
	}
	m.ex.handling = prev
}
