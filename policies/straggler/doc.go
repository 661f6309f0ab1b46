// Package straggler holds clusteremu's speculation policies: what a job
// manager does about the job's slow attempts. It imports nothing from
// clusteremu but policies/sched's types and the leaf package units.
//
// A Policy serves one job. Its job manager feeds it the job's attempts as
// they launch, report progress and end, and asks it to Decide on each
// progress report and every DecidePeriod; Decide returns Actions as
// data: Duplicate (ask the coordinator for another attempt of a running
// task, which it launches ahead of pending tasks on a node not running
// it), Withdraw (take that back), Kill (one attempt) and Restart (kill
// every attempt of a task so it runs again). The policies, registered by
// name with their parameters (Register, as policies/sched's):
//
//   - "none": no speculation, the default.
//   - "hadoop": Hadoop 1's rule, once every task has started.
//   - "late": LATE (and Early-LATE with early = true).
//   - "dryad": Dryad's 75th-percentile rule.
//   - "mantri": Mantri's resource-aware restarts and duplicates.
//
// A worked example, Mantri's rule on the thesis's §2.3 numbers: a task
// with t_rem = 5 s whose new copy would take 4 s (every sample 4 s) is
// left alone while tasks wait and Δ = 2 s (no restart, 5 < 4 + 2; no
// duplicate, P(4 < ½ × 5) = 0), restarted when Δ = 0.5 s (5 > 4.5), and
// once all tasks have started duplicated when Δ = 0.25 s (5 − 4 = 1 >
// ρΔ = 0.75) but not when Δ = 0.5 s (1 < 1.5). TestMantriOnTheThesisNumbers
// runs it.
package straggler
