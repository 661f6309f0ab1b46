package straggler

import (
	"testing"
	"time"

	"clusteremu/policies/sched"
)

// BenchmarkDecide is one progress report and the decision that follows
// it, in a 1,000-map phase with 800 maps finished (800 samples of t_new,
// durations 10–20 s) and 200 running, each reporting in turn every 10 s
// at a steady pace; one in ten runs at a third of the pace. Every op is
// one report and one Decide.
func BenchmarkDecide(b *testing.B) {
	for _, name := range []string{"mantri", "late"} {
		b.Run(name, func(b *testing.B) {
			const tasks, finished = 1000, 800
			p, err := New(name, nil, Setup{Tasks: [2]int{tasks, 0}, Delta: 10 * time.Second, Lag: 1500 * time.Millisecond})
			if err != nil {
				b.Fatal(err)
			}
			for i := range int32(finished) {
				end := at(10 + float64(i%11))
				p.Launched(0, Launch{Attempt: mapAttempt(i, 0), Bytes: 128 << 20})
				p.Progressed(end/2, Report{Attempt: mapAttempt(i, 0), Score: 0.5, Read: 0.5, At: end / 2})
				p.Progressed(end, Report{Attempt: mapAttempt(i, 0), Score: 1, Read: 1, At: end})
				p.Ended(end, End{Attempt: mapAttempt(i, 0), Outcome: sched.Succeeded})
			}
			start := at(100)
			for i := int32(finished); i < tasks; i++ {
				p.Launched(start, Launch{Attempt: mapAttempt(i, 0), Bytes: 128 << 20})
			}
			v := fakeView{}
			now := start
			b.ReportAllocs()
			b.ResetTimer()
			for n := 0; b.Loop(); n++ {
				task := int32(finished + n%(tasks-finished))
				now += 50 * time.Millisecond // 200 reports every 10 s
				pace := 0.01
				if task%10 == 0 {
					pace /= 3
				}
				score := min(pace*(now-start).Seconds(), 0.99)
				p.Progressed(now, Report{Attempt: mapAttempt(task, 0), Score: score, Read: score, Start: start, At: now})
				p.Decide(now, v)
			}
		})
	}
}
