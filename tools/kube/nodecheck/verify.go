package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

const (
	namespace = "bizassist"
	release   = "bizassist"
	nodeName  = "bizassist-node"
	servers   = "app.kubernetes.io/instance=" + release + ",app.kubernetes.io/component=server"
)

type kube struct {
	kubectl, helm, kubeconfig string
}

// run runs kubectl (or helm, when argv[0] is "helm") with a deadline and returns its output.
func (k kube) run(timeout time.Duration, stdin []byte, argv ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	name, args := k.kubectl, argv
	if argv[0] == "helm" {
		name, args = k.helm, argv[1:]
	}
	cmd := exec.CommandContext(ctx, name, append([]string{"--kubeconfig", k.kubeconfig}, args...)...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return out, nil
}

type pod struct {
	Metadata struct {
		Name              string            `json:"name"`
		Namespace         string            `json:"namespace"`
		Labels            map[string]string `json:"labels"`
		DeletionTimestamp *string           `json:"deletionTimestamp"`
	} `json:"metadata"`
	Spec struct {
		Containers []struct {
			Image string `json:"image"`
		} `json:"containers"`
	} `json:"spec"`
	Status struct {
		Phase      string `json:"phase"`
		Conditions []struct {
			Type, Status string
		} `json:"conditions"`
	} `json:"status"`
}

func (p pod) ready() bool {
	for _, c := range p.Status.Conditions {
		if c.Type == "Ready" {
			return c.Status == "True" && p.Metadata.DeletionTimestamp == nil
		}
	}
	return false
}

func (p pod) service() string { return p.Metadata.Labels["app.kubernetes.io/name"] }

// pods lists pods (all namespaces when selector is ""), leaving out finished ones (hook Jobs).
func (k kube) pods(selector string) ([]pod, error) {
	args := []string{"get", "pods", "-o", "json"}
	if selector == "" {
		args = append(args, "-A")
	} else {
		args = append(args, "-n", namespace, "-l", selector)
	}
	out, err := k.run(30*time.Second, nil, args...)
	if err != nil {
		return nil, err
	}
	var list struct{ Items []pod }
	if err := json.Unmarshal(out, &list); err != nil {
		return nil, err
	}
	var live []pod
	for _, p := range list.Items {
		if p.Status.Phase != "Succeeded" {
			live = append(live, p)
		}
	}
	return live, nil
}

// poll calls f every 250 ms until it reports done, fails, or timeout passes.
func poll(timeout time.Duration, what string, f func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		done, err := f()
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not done after %s", what, timeout)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// allReady waits until every pod of the cluster is Ready, and returns how many there are.
func (k kube) allReady(timeout time.Duration) (int, int, error) {
	var ready, total int
	err := poll(timeout, "every pod Ready", func() (bool, error) {
		ps, err := k.pods("")
		if err != nil {
			return false, err
		}
		ready, total = 0, len(ps)
		for _, p := range ps {
			if p.ready() {
				ready++
			}
		}
		return total > 0 && ready == total, nil
	})
	return ready, total, err
}

// serversSettled: every server Deployment has its replicas, all Ready, none terminating.
func (k kube) serversSettled(want int) (bool, []pod, error) {
	ps, err := k.pods(servers)
	if err != nil {
		return false, nil, err
	}
	n := 0
	for _, p := range ps {
		if p.ready() {
			n++
		}
	}
	return n == want && len(ps) == want, ps, nil
}

func readyCmd(args []string) error {
	fs := flag.NewFlagSet("ready", flag.ExitOnError)
	var k kube
	fs.StringVar(&k.kubectl, "kubectl", "kubectl", "kubectl binary")
	fs.StringVar(&k.kubeconfig, "kubeconfig", "", "the node's kubeconfig")
	timeout := fs.Duration("timeout", 5*time.Minute, "how long to wait")
	summary := fs.String("summary", "", "append the result line to this file")
	_ = fs.Parse(args)
	start := time.Now()
	ready, total, err := k.allReady(*timeout)
	line := fmt.Sprintf("k8s node: %d/%d pods Ready", ready, total)
	fmt.Printf("%s (%.0fs)\n", line, time.Since(start).Seconds())
	appendLine(*summary, line)
	return err
}

func appendLine(path, line string) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func verifyCmd(args []string) error {
	fs := flag.NewFlagSet("verify", flag.ExitOnError)
	var k kube
	var upgrade multiFlag
	fs.StringVar(&k.kubectl, "kubectl", "kubectl", "kubectl binary")
	fs.StringVar(&k.helm, "helm", "helm", "helm binary")
	fs.StringVar(&k.kubeconfig, "kubeconfig", "", "the node's kubeconfig")
	base := fs.String("url", "https://127.0.0.1:9443", "the edge")
	ca := fs.String("ca", "", "the edge certificate's CA")
	tag := fs.String("upgrade-tag", "", "the image tag to upgrade to")
	fs.Var(&upgrade, "upgrade-arg", "an argument of helm upgrade (repeat): the release, chart, values")
	rate := fs.Int("rate", 20, "requests a second")
	summary := fs.String("summary", "", "append the result lines to this file")
	_ = fs.Parse(args)

	_, want, err := k.serverCount()
	if err != nil {
		return err
	}
	l, err := newLoader(*base, *ca, *rate, 64)
	if err != nil {
		return err
	}
	l.start()
	var failures []string
	fail := func(format string, a ...any) {
		msg := fmt.Sprintf(format, a...)
		fmt.Println("FAIL: " + msg)
		failures = append(failures, msg)
	}
	report := func(name string, start time.Time, c counts) {
		fmt.Printf("==> %s: %s in %.0fs\n", name, c, time.Since(start).Seconds())
		for _, s := range c.samples {
			fmt.Println("    " + s)
		}
		if c.errors > 0 {
			fail("%s: %d failed requests", name, c.errors)
		}
	}

	// Steady state first, so a failure under change is not one that happens anyway.
	start := time.Now()
	time.Sleep(5 * time.Second)
	report("steady load", start, l.phase())

	start = time.Now()
	up, err := k.rollingUpgrade(*tag, upgrade, want)
	c := l.phase()
	report("rolling upgrade", start, c)
	appendLine(*summary, fmt.Sprintf("k8s rolling upgrade: %d requests, %d errors", c.requests, c.errors))
	if err != nil {
		fail("rolling upgrade: %v", err)
	} else {
		fmt.Println("    " + up)
	}

	services, err := k.services()
	if err != nil {
		return err
	}
	for _, s := range services {
		start = time.Now()
		rec, err := k.deleteOne(s, want)
		c := l.phase()
		report("pod of "+s+" deleted", start, c)
		if err != nil {
			fail("delete a pod of %s: %v", s, err)
		} else {
			fmt.Printf("    replacement Ready %.1fs after the delete\n", rec.Seconds())
		}
	}

	start = time.Now()
	out, err := k.drain(services, want)
	c = l.phase()
	report("drain (eviction API, PodDisruptionBudgets)", start, c)
	for _, line := range out {
		fmt.Println("    " + line)
	}
	if err != nil {
		fail("drain: %v", err)
	}
	_ = l.close()
	if len(failures) > 0 {
		return errors.New(strings.Join(failures, "; "))
	}
	return nil
}

func (k kube) serverCount() ([]pod, int, error) {
	ps, err := k.pods(servers)
	return ps, len(ps), err
}

func (k kube) services() ([]string, error) {
	ps, err := k.pods(servers)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range ps {
		if s := p.service(); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out, nil
}

// rollingUpgrade runs helm upgrade to tag and waits until every server pod is a new one,
// Ready, on the new tag.
func (k kube) rollingUpgrade(tag string, helmArgs []string, want int) (string, error) {
	old, _, err := k.serverCount()
	if err != nil {
		return "", err
	}
	before := map[string]bool{}
	for _, p := range old {
		before[p.Metadata.Name] = true
	}
	args := append([]string{"helm", "upgrade"}, helmArgs...)
	args = append(args, "--set", "global.image.tag="+tag, "--wait", "--timeout", "5m")
	if _, err := k.run(6*time.Minute, nil, args...); err != nil {
		return "", err
	}
	var now []pod
	err = poll(3*time.Minute, "every server pod replaced", func() (bool, error) {
		ok, ps, err := k.serversSettled(want)
		now = ps
		if err != nil || !ok {
			return false, err
		}
		for _, p := range ps {
			if before[p.Metadata.Name] || !strings.HasSuffix(p.Spec.Containers[0].Image, ":"+tag) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d/%d server pods replaced, all on :%s", len(now), len(before), tag), nil
}

// deleteOne deletes one server pod of service and returns how long until the Deployment has
// all its replicas Ready again.
func (k kube) deleteOne(service string, want int) (time.Duration, error) {
	ps, err := k.pods(servers + ",app.kubernetes.io/name=" + service)
	if err != nil {
		return 0, err
	}
	if len(ps) == 0 {
		return 0, errors.New("no server pod")
	}
	victim := ps[0].Metadata.Name
	start := time.Now()
	if _, err := k.run(30*time.Second, nil, "-n", namespace, "delete", "pod", victim, "--wait=false"); err != nil {
		return 0, err
	}
	err = poll(3*time.Minute, "replacement of "+victim, func() (bool, error) {
		ok, ps, err := k.serversSettled(want)
		if err != nil || !ok {
			return false, err
		}
		for _, p := range ps {
			if p.Metadata.Name == victim {
				return false, nil
			}
		}
		return true, nil
	})
	return time.Since(start), err
}

func (k kube) evict(name string) error {
	body := fmt.Sprintf(`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":%q,"namespace":%q}}`, name, namespace)
	_, err := k.run(30*time.Second, []byte(body), "create", "--raw", "/api/v1/namespaces/"+namespace+"/pods/"+name+"/eviction", "-f", "-")
	return err
}

func refusedByBudget(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "TooManyRequests") || strings.Contains(err.Error(), "disruption budget"))
}

// drain is kubectl drain's order with the eviction API: the node cordoned, every server pod
// evicted; the PodDisruptionBudgets (maxUnavailable 1) must let one pod of each service go and
// refuse the second while the first's replacement cannot be scheduled. Then the node is
// uncordoned and the refused evictions are retried until the budgets allow them.
func (k kube) drain(services []string, want int) ([]string, error) {
	var out []string
	if _, err := k.run(30*time.Second, nil, "cordon", nodeName); err != nil {
		return nil, err
	}
	uncordoned := false
	defer func() {
		if !uncordoned {
			_, _ = k.run(30*time.Second, nil, "uncordon", nodeName)
		}
	}()
	var refused []string
	var failed []string
	for _, s := range services {
		ps, err := k.pods(servers + ",app.kubernetes.io/name=" + s)
		if err != nil {
			return out, err
		}
		if len(ps) < 2 {
			failed = append(failed, s+": fewer than two pods")
			continue
		}
		if err := k.evict(ps[0].Metadata.Name); err != nil {
			failed = append(failed, fmt.Sprintf("%s: the first eviction was refused: %v", s, err))
			continue
		}
		err = k.evict(ps[1].Metadata.Name)
		switch {
		case refusedByBudget(err):
			refused = append(refused, ps[1].Metadata.Name)
		case err == nil:
			failed = append(failed, s+": the second pod was evicted although the first was not replaced (the PodDisruptionBudget did not hold)")
		default:
			failed = append(failed, fmt.Sprintf("%s: second eviction: %v", s, err))
		}
	}
	out = append(out, fmt.Sprintf("node cordoned: %d services lost one pod each, %d second evictions refused by their PodDisruptionBudget", len(services), len(refused)))
	if _, err := k.run(30*time.Second, nil, "uncordon", nodeName); err != nil {
		return out, err
	}
	uncordoned = true
	start := time.Now()
	for _, name := range refused {
		err := poll(3*time.Minute, "eviction of "+name, func() (bool, error) {
			err := k.evict(name)
			if refusedByBudget(err) {
				return false, nil
			}
			return err == nil, err
		})
		if err != nil {
			failed = append(failed, err.Error())
		}
	}
	err := poll(3*time.Minute, "every server pod Ready after the drain", func() (bool, error) {
		ok, _, err := k.serversSettled(want)
		return ok, err
	})
	if err != nil {
		failed = append(failed, err.Error())
	}
	out = append(out, fmt.Sprintf("the refused evictions went through once the budgets allowed; every service back to full strength %.0fs after uncordon", time.Since(start).Seconds()))
	if len(failed) > 0 {
		return out, errors.New(strings.Join(failed, "; "))
	}
	return out, nil
}
