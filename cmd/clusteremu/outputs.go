package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"clusteremu/cluster"
	"clusteremu/scenarios"
)

// writeOutputs writes a run's files. summary.json, jobs.csv and tasks.csv
// hold emulated results only, so the same scenario and seeds give the
// same bytes; run.json holds what varies from run to run.
func writeOutputs(dir string, sc *scenarios.Scenario, cfg cluster.Config, rep *cluster.Report, wall time.Duration) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	summary := map[string]any{
		"scenario":      sc.Name,
		"config_sha256": configHash(cfg),
		"seed":          cfg.Run.Seed,
		"schedule_seed": cfg.Run.ScheduleSeed,
		"clock":         clockName(cfg),
		"end_reason":    string(rep.End.Reason),
		"metrics":       rep.Summary,
	}
	if err := writeJSON(filepath.Join(dir, "summary.json"), summary); err != nil {
		return err
	}
	host, _ := os.Hostname()
	run := map[string]any{
		"wall_seconds": wall.Seconds(), "speed": rep.End.At.Seconds() / wall.Seconds(),
		"reference_wall_seconds": rep.ReferenceWall.Seconds(),
		"messages":               rep.End.Steps, "dead_letters": rep.End.DeadLetters,
		"host": host, "go": runtime.Version(), "goos": runtime.GOOS, "goarch": runtime.GOARCH,
	}
	if err := writeJSON(filepath.Join(dir, "run.json"), run); err != nil {
		return err
	}
	if err := writeCSV(filepath.Join(dir, "jobs.csv"), jobRows(rep.Records)); err != nil {
		return err
	}
	if cfg.Run.Events {
		if err := writeJSONL(filepath.Join(dir, "events.jsonl"), rep.End.Events); err != nil {
			return err
		}
		if err := writeJSONL(filepath.Join(dir, "choices.jsonl"), rep.End.Choices); err != nil {
			return err
		}
		if err := writeJSONL(filepath.Join(dir, "decisions.jsonl"), rep.End.Decisions); err != nil {
			return err
		}
	}
	return writeCSV(filepath.Join(dir, "tasks.csv"), taskRows(rep.Records))
}

// configHash identifies the resolved configuration, generated workload
// included.
func configHash(cfg cluster.Config) string {
	data, _ := json.Marshal(cfg)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// writeJSONL writes one JSON object per line.
func writeJSONL[T any](path string, items []T) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for i := range items {
		if err := enc.Encode(&items[i]); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeCSV(path string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	if err := w.WriteAll(rows); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// secs prints emulated times in seconds with a fixed format.
func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 6, 64) }

func jobRows(res *cluster.Records) [][]string {
	rows := [][]string{{"job", "name", "pool", "status", "reason", "submit", "start", "finish", "response",
		"reference", "slowdown", "maps", "reduces", "input_bytes", "shuffle_bytes", "output_bytes", "evictions", "evicted_maps"}}
	for _, j := range res.Jobs {
		start := ""
		if j.Start >= 0 {
			start = secs(j.Start)
		}
		ref, slowdown := "", ""
		if sd := j.Slowdown(); sd > 0 {
			ref, slowdown = secs(j.Reference), strconv.FormatFloat(sd, 'f', 4, 64)
		}
		rows = append(rows, []string{fmt.Sprint(j.ID), j.Name, j.Pool, string(j.Outcome), j.Reason,
			secs(j.Submit), start, secs(j.Finish), secs(j.Finish - j.Submit), ref, slowdown,
			fmt.Sprint(j.Maps), fmt.Sprint(j.Reduces), fmt.Sprint(j.InputBytes), fmt.Sprint(j.ShuffleBytes), fmt.Sprint(j.OutputBytes),
			fmt.Sprint(j.Evictions), fmt.Sprint(j.EvictedMaps)})
	}
	return rows
}

func taskRows(res *cluster.Records) [][]string {
	rows := [][]string{{"attempt", "job", "kind", "task", "try", "node", "slot", "locality", "start", "end",
		"local_bytes", "remote_bytes", "outcome", "reason"}}
	for _, a := range res.Attempts {
		start := ""
		if a.Start >= 0 {
			start = secs(a.Start)
		}
		at := a.Attempt
		rows = append(rows, []string{at.String(), fmt.Sprint(at.Job), at.Kind.String(), fmt.Sprint(at.Task), fmt.Sprint(at.Attempt),
			fmt.Sprint(a.Node), fmt.Sprint(a.Slot), a.Locality.String(), start, secs(a.End),
			fmt.Sprint(a.LocalBytes), fmt.Sprint(a.RemoteBytes), a.Outcome.String(), a.Reason})
	}
	return rows
}

// clockName says how the run kept time.
func clockName(cfg cluster.Config) string {
	switch {
	case cfg.Run.Clock == cluster.Scaled:
		return fmt.Sprintf("scaled ×%g", cfg.Run.Speedup)
	case cfg.Run.Clock == cluster.Wall:
		return "wall"
	case cfg.Run.Concurrent():
		return "virtual, concurrent"
	}
	return "virtual, deterministic"
}
