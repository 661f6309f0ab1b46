// Package qos is the client-side admission and node-side queueing of
// Álvarez-Tabío et al.'s QoS classes for MapReduce tasks (notes:
// alvarez-tabio-qos.md §2.5): a token bucket per client with an adaptive
// per-task cost α, and weighted round robin over per-class queues on a
// node. Like every policy it is pure: times come in as arguments, and
// nothing here reads a clock, draws a random number or sends a message.
//
// A token is a millisecond of a node's compute. A client of class basic
// (rate 100 tokens/s, capacity 125) that declares tasks of 50 ms posts
// its first task with α = 50: its bucket, full at 125, forwards it and
// keeps 75; a second at once keeps 25; a third is non-conformant and,
// basic being the last class, dropped. A node reports the task's 50 ms
// of service (TaskServed), and α ← (α + 50)/2 stays 50. Had the node
// reported 200 ms, α would be 125, and 250 ms after that 187.5: past
// the capacity, so every later task is dropped, and since a dropped task
// is never served no feedback brings α down again (the paper's lock-out),
// unless the client's recovery is RecoveryDecay, which feeds it the
// declared mean for each period it hears nothing.
//
//	c := qos.NewClient(qos.DefaultClasses(), 2, 50, qos.RecoveryNone, 0)
//	v := c.Post(0) // v.Class == 2, conformant: 75 tokens left
//	c.Served(50 * time.Millisecond)
//
// On the node, a WRR holds one FIFO queue per class and takes up to a
// class's weight of tasks from it a round, highest class first, skipping
// empty queues: with weights 10, 3 and 1 and every queue backlogged a
// round serves 14 tasks, 10 premium, 3 advanced and 1 basic.
package qos
