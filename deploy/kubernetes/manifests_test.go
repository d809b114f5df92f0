package kubernetes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// kinds are the objects the manifests may hold, by apiVersion and kind;
// any other is an error, so that every document is decoded into its real
// API type.
var kinds = map[string]func() any{
	"batch/v1 Job":             func() any { return new(batchv1.Job) },
	"v1 Secret":                func() any { return new(corev1.Secret) },
	"v1 PersistentVolumeClaim": func() any { return new(corev1.PersistentVolumeClaim) },
}

// docSep separates the documents of a YAML file.
var docSep = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

// decode decodes one YAML document strictly into the API type its
// apiVersion and kind name: an unknown or misspelt field is an error, as
// is a duplicate key. It returns nil for a document with nothing in it.
func decode(doc []byte) (any, error) {
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return nil, err
	}
	if string(bytes.TrimSpace(j)) == "null" {
		return nil, nil // comments only
	}
	var tm metav1.TypeMeta
	if err := json.Unmarshal(j, &tm); err != nil {
		return nil, err
	}
	newObj := kinds[tm.APIVersion+" "+tm.Kind]
	if newObj == nil {
		return nil, fmt.Errorf("apiVersion %q kind %q: not a kind these manifests use", tm.APIVersion, tm.Kind)
	}
	obj := newObj()
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(obj); err != nil {
		return nil, fmt.Errorf("%s: %w", tm.Kind, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: data after the object", tm.Kind)
	}
	return obj, nil
}

// manifests is what the YAML files of this directory hold.
type manifests struct {
	loader, plan, summarize *batchv1.Job
	secrets                 map[string]*corev1.Secret
	claims                  map[string]*corev1.PersistentVolumeClaim
}

func load(t *testing.T) *manifests {
	t.Helper()
	files, err := filepath.Glob("*.y*ml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no YAML files in this directory")
	}
	m := &manifests{secrets: map[string]*corev1.Secret{}, claims: map[string]*corev1.PersistentVolumeClaim{}}
	var jobs []*batchv1.Job
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range docSep.Split(string(b), -1) {
			obj, err := decode([]byte(doc))
			if err != nil {
				t.Fatalf("%s, document %d: %v", f, i+1, err)
			}
			switch o := obj.(type) {
			case nil:
			case *batchv1.Job:
				jobs = append(jobs, o)
			case *corev1.Secret:
				m.secrets[o.Name] = o
			case *corev1.PersistentVolumeClaim:
				m.claims[o.Name] = o
			}
		}
	}
	for _, j := range jobs {
		if len(j.Spec.Template.Spec.Containers) != 1 {
			t.Fatalf("job %s has %d containers, want 1", j.Name, len(j.Spec.Template.Spec.Containers))
		}
		c := j.Spec.Template.Spec.Containers[0]
		switch {
		case len(c.Args) > 0 && c.Args[0] == "summarize":
			if m.summarize != nil {
				t.Fatalf("two summarize jobs: %s and %s", m.summarize.Name, j.Name)
			}
			m.summarize = j
		case slices.ContainsFunc(c.Args, isWriteSplitPlan):
			if m.plan != nil {
				t.Fatalf("two split plan jobs: %s and %s", m.plan.Name, j.Name)
			}
			m.plan = j
		default:
			if m.loader != nil {
				t.Fatalf("two loader jobs: %s and %s", m.loader.Name, j.Name)
			}
			m.loader = j
		}
	}
	if m.loader == nil || m.plan == nil || m.summarize == nil {
		t.Fatal("want a loader Job (cqlload-job.yaml), a split plan Job (cqlload-plan.yaml) and a summarize Job (cqlload-summarize.yaml)")
	}
	return m
}

// isWriteSplitPlan tells the argument that makes a Job the split plan
// step: cqlload --write-split-plan writes a plan and loads nothing.
func isWriteSplitPlan(a string) bool {
	return a == "--write-split-plan" || strings.HasPrefix(a, "--write-split-plan=")
}

// completions is N, the loader Job's number of splits.
func (m *manifests) completions(t *testing.T) int {
	t.Helper()
	c := m.loader.Spec.Completions
	if c == nil || *c < 1 {
		t.Fatalf("job %s: completions not set", m.loader.Name)
	}
	return int(*c)
}

const (
	indexVar        = "JOB_COMPLETION_INDEX"
	indexAnnotation = "metadata.annotations['" + batchv1.JobCompletionIndexAnnotation + "']"
)

// expand does what the kubelet does to a container's args: $(VAR) becomes
// the value of env VAR, $$ a $. A reference to no variable is an error
// here (the kubelet would leave it as it is). The completion index is
// index; a value from a Secret is a placeholder.
func expand(s string, env []corev1.EnvVar, index int) (string, error) {
	vals := map[string]string{}
	for _, e := range env {
		switch {
		case e.ValueFrom == nil:
			vals[e.Name] = e.Value
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == indexAnnotation:
			vals[e.Name] = strconv.Itoa(index)
		case e.ValueFrom.SecretKeyRef != nil:
			vals[e.Name] = "SECRET-" + e.ValueFrom.SecretKeyRef.Key
		}
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i:], ')')
			if end < 0 {
				return "", fmt.Errorf("%q: unclosed $(", s)
			}
			name := s[i+2 : i+end]
			v, ok := vals[name]
			if !ok {
				return "", fmt.Errorf("%q: $(%s) is no variable of the container's env", s, name)
			}
			b.WriteString(v)
			i += end
		default:
			b.WriteByte('$')
		}
	}
	return b.String(), nil
}

// expandArgs expands every argument of container c as the kubelet would
// for the pod of completion index index.
func expandArgs(c *corev1.Container, index int) ([]string, error) {
	args := make([]string, len(c.Args))
	for k, a := range c.Args {
		var err error
		if args[k], err = expand(a, c.Env, index); err != nil {
			return nil, err
		}
	}
	return args, nil
}

// flagSet is what cqlload's --help lists: each long flag, whether it
// takes a value, and the short forms.
type flagSet struct {
	takesValue map[string]bool   // by long name
	short      map[string]string // short → long
}

// helpFlag matches a flag line of pflag's usage: "  -u, --username string   …"
// or "      --ssl   …".
var helpFlag = regexp.MustCompile(`^\s+(?:-([A-Za-z0-9]), )?--([a-z0-9][a-z0-9-]*)(?: (\S+))?(?:\s{2,}|$)`)

func parseHelp(help string) flagSet {
	fs := flagSet{takesValue: map[string]bool{}, short: map[string]string{}}
	for _, line := range strings.Split(help, "\n") {
		m := helpFlag.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		fs.takesValue[m[2]] = m[3] != ""
		if m[1] != "" {
			fs.short[m[1]] = m[2]
		}
	}
	return fs
}

type flagUse struct{ name, value string }

// parse splits a command line as cqlload's flag parsing does (pflag,
// flags and arguments interspersed) into the flags, by long name, and the
// other arguments. A flag the set does not know is an error.
func (fs flagSet) parse(args []string) (flags []flagUse, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		var name, value string
		hasValue := false
		switch {
		case a == "--":
			return flags, append(rest, args[i+1:]...), nil
		case strings.HasPrefix(a, "--"):
			name, value, hasValue = strings.Cut(a[2:], "=")
			if _, ok := fs.takesValue[name]; !ok {
				return nil, nil, fmt.Errorf("unknown flag --%s", name)
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			long, ok := fs.short[a[1:2]]
			if !ok {
				return nil, nil, fmt.Errorf("unknown shorthand flag -%s in %s", a[1:2], a)
			}
			name = long
			if len(a) > 2 {
				if !fs.takesValue[name] {
					return nil, nil, fmt.Errorf("%s: combined short flags are not used here", a)
				}
				value, hasValue = strings.TrimPrefix(a[2:], "="), true
			}
		default:
			rest = append(rest, a)
			continue
		}
		if fs.takesValue[name] && !hasValue {
			if i+1 == len(args) {
				return nil, nil, fmt.Errorf("flag --%s needs a value", name)
			}
			i++
			value = args[i]
		}
		flags = append(flags, flagUse{name, value})
	}
	return flags, rest, nil
}

func values(flags []flagUse, name string) []string {
	var vs []string
	for _, f := range flags {
		if f.name == name {
			vs = append(vs, f.value)
		}
	}
	return vs
}

// rawFlag returns the value of the flag name in args as written, before
// $(VAR) expansion, or "" when it is not there.
func rawFlag(args []string, name string) string {
	for i, a := range args {
		if a == "--"+name && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	return ""
}

// mountOf finds the volume mount under which path lies (the deepest) and
// the volume, and returns the path inside the volume (subPath included).
func mountOf(pod *corev1.PodSpec, c *corev1.Container, p string) (corev1.VolumeMount, *corev1.Volume, string, bool) {
	var best corev1.VolumeMount
	found := false
	for _, vm := range c.VolumeMounts {
		mp := strings.TrimSuffix(vm.MountPath, "/")
		if (p == mp || strings.HasPrefix(p, mp+"/")) && (!found || len(mp) > len(strings.TrimSuffix(best.MountPath, "/"))) {
			best, found = vm, true
		}
	}
	if !found {
		return best, nil, "", false
	}
	for i := range pod.Volumes {
		if pod.Volumes[i].Name == best.Name {
			rel := strings.TrimPrefix(strings.TrimPrefix(p, strings.TrimSuffix(best.MountPath, "/")), "/")
			return best, &pod.Volumes[i], path.Join(best.SubPath, rel), true
		}
	}
	return best, nil, "", false
}

// onClaim checks that path p of container c lies on a PersistentVolumeClaim
// of the manifests that many pods can mount at once, writable when
// writable is set, and returns the claim and the path inside the volume.
func (m *manifests) onClaim(t *testing.T, job *batchv1.Job, p string, writable bool) (claim, inVolume string) {
	t.Helper()
	pod := &job.Spec.Template.Spec
	vm, vol, in, ok := mountOf(pod, &pod.Containers[0], p)
	if !ok || vol.PersistentVolumeClaim == nil {
		t.Errorf("job %s: %s is on no PersistentVolumeClaim mount", job.Name, p)
		return "", ""
	}
	name := vol.PersistentVolumeClaim.ClaimName
	pvc, ok := m.claims[name]
	if !ok {
		t.Errorf("job %s: %s is on claim %s, which no manifest defines", job.Name, p, name)
	} else if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("claim %s: access modes %v, want ReadWriteMany (the pods run on several nodes)", name, pvc.Spec.AccessModes)
	}
	if writable && (vm.ReadOnly || vol.PersistentVolumeClaim.ReadOnly) {
		t.Errorf("job %s: %s is on a read-only mount, and cqlload writes it", job.Name, p)
	}
	return name, in
}

// actionFor is what the pod failure policy does with a pod whose
// container ends with exit status code: the first rule that matches, or
// Count when none does.
func actionFor(p *batchv1.PodFailurePolicy, container string, code int32) batchv1.PodFailurePolicyAction {
	if p == nil {
		return batchv1.PodFailurePolicyActionCount
	}
	for _, r := range p.Rules {
		e := r.OnExitCodes
		if e == nil || e.ContainerName != nil && *e.ContainerName != container {
			continue
		}
		if slices.Contains(e.Values, code) == (e.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn) {
			return r.Action
		}
	}
	return batchv1.PodFailurePolicyActionCount
}

func TestLoaderJob(t *testing.T) {
	m := load(t)
	j := m.loader
	n := m.completions(t)
	pod := &j.Spec.Template.Spec
	c := &pod.Containers[0]
	if j.Spec.PodFailurePolicy == nil {
		t.Fatalf("job %s: no podFailurePolicy", j.Name)
	}

	for _, tc := range []struct {
		name  string
		check func() error
	}{
		{"indexed", func() error {
			if j.Spec.CompletionMode == nil || *j.Spec.CompletionMode != batchv1.IndexedCompletion {
				return fmt.Errorf("completionMode %v, want Indexed", j.Spec.CompletionMode)
			}
			return nil
		}},
		{"parallelism", func() error {
			if p := j.Spec.Parallelism; p == nil || *p < 1 || int(*p) > n {
				return fmt.Errorf("parallelism %v, want 1 to completions (%d)", p, n)
			}
			return nil
		}},
		{"split uses the completion index", func() error {
			if got, want := rawFlag(c.Args, "split"), fmt.Sprintf("$(%s)/%d", indexVar, n); got != want {
				return fmt.Errorf("--split %q, want %q (completions is %d)", got, want, n)
			}
			return nil
		}},
		{"index from the downward API", func() error {
			for _, e := range c.Env {
				if e.Name == indexVar {
					if e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != indexAnnotation {
						return fmt.Errorf("env %s does not come from %s", indexVar, indexAnnotation)
					}
					return nil
				}
			}
			return fmt.Errorf("no env %s for $(%s) in args", indexVar, indexVar)
		}},
		{"backoff per index", func() error {
			if b := j.Spec.BackoffLimitPerIndex; b == nil || *b < 1 {
				return fmt.Errorf("backoffLimitPerIndex %v, want at least 1: a failed split is retried alone", b)
			}
			if mf := j.Spec.MaxFailedIndexes; mf == nil || *mf < 1 || int(*mf) > n {
				return fmt.Errorf("maxFailedIndexes %v, want 1 to completions (%d)", mf, n)
			}
			return nil
		}},
		{"restartPolicy Never", func() error {
			if pod.RestartPolicy != corev1.RestartPolicyNever {
				return fmt.Errorf("restartPolicy %q: a pod failure policy needs Never", pod.RestartPolicy)
			}
			return nil
		}},
		{"evictions are not failures", func() error {
			for _, r := range j.Spec.PodFailurePolicy.Rules {
				for _, pc := range r.OnPodConditions {
					if pc.Type == corev1.DisruptionTarget && r.Action == batchv1.PodFailurePolicyActionIgnore {
						return nil
					}
				}
			}
			return fmt.Errorf("no rule ignores pods ended by a disruption (DisruptionTarget): an evicted split would spend a retry")
		}},
		{"resume and summary per split", func() error {
			for _, f := range []string{"resume", "summary-json"} {
				if v := rawFlag(c.Args, f); !strings.Contains(v, "$("+indexVar+")") {
					return fmt.Errorf("--%s %q: not one per split ($(%s))", f, v, indexVar)
				}
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.check(); err != nil {
				t.Errorf("job %s: %v", j.Name, err)
			}
		})
	}

	// cqlload's exit statuses (README, Exit status) and what the
	// Job is to do with each.
	t.Run("exit statuses", func(t *testing.T) {
		for _, tc := range []struct {
			code int32
			want batchv1.PodFailurePolicyAction
			why  string
		}{
			{1, batchv1.PodFailurePolicyActionFailIndex, "rows rejected: the split finished, the error files say what; a retry would find it done"},
			{2, batchv1.PodFailurePolicyActionFailIndex, "aborted by the error limits: the cause needs fixing first"},
			{3, batchv1.PodFailurePolicyActionCount, "fatal (cluster unreachable, …): retried, resuming"},
			{4, batchv1.PodFailurePolicyActionCount, "interrupted: retried, resuming"},
			{64, batchv1.PodFailurePolicyActionFailIndex, "usage error: a retry fails the same way"},
		} {
			if got := actionFor(j.Spec.PodFailurePolicy, c.Name, tc.code); got != tc.want {
				t.Errorf("exit %d: action %s, want %s (%s)", tc.code, got, tc.want, tc.why)
			}
		}
	})

	t.Run("paths on the shared volume", func(t *testing.T) {
		for i := range n {
			for _, f := range []string{"resume", "summary-json", "err-file"} {
				v, err := expand(rawFlag(c.Args, f), c.Env, i)
				if err != nil || v == "" {
					t.Fatalf("--%s: %q %v", f, v, err)
				}
				m.onClaim(t, j, v, true)
			}
		}
	})
}

func TestPasswordFromSecretFile(t *testing.T) {
	m := load(t)
	for _, j := range []*batchv1.Job{m.loader, m.plan, m.summarize} {
		c := &j.Spec.Template.Spec.Containers[0]
		for _, a := range c.Args {
			if a == "--password" || strings.HasPrefix(a, "--password=") || strings.HasPrefix(a, "-p") {
				t.Errorf("job %s: %q: a password in the arguments is visible to anyone who can read the pod", j.Name, a)
			}
		}
		for _, e := range c.Env {
			if e.Name == "CQLLOAD_PASSWORD" || secretish.MatchString(e.Name) && e.ValueFrom == nil {
				t.Errorf("job %s: env %s: credentials must come from a Secret (the password as a file)", j.Name, e.Name)
			}
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				ref := e.ValueFrom.SecretKeyRef
				if s, ok := m.secrets[ref.Name]; !ok || !hasKey(s, ref.Key) {
					t.Errorf("job %s: env %s refers to secret %s key %s, which secret-example.yaml does not define", j.Name, e.Name, ref.Name, ref.Key)
				}
			}
		}
		if len(c.EnvFrom) > 0 {
			t.Errorf("job %s: envFrom: name each variable", j.Name)
		}
	}

	j := m.loader
	pod := &j.Spec.Template.Spec
	c := &pod.Containers[0]
	pf := rawFlag(c.Args, "password-file")
	if pf == "" {
		t.Fatalf("job %s: no --password-file", j.Name)
	}
	_, vol, in, ok := mountOf(pod, c, pf)
	if !ok || vol.Secret == nil {
		t.Fatalf("job %s: --password-file %s is on no Secret volume", j.Name, pf)
	}
	s, ok := m.secrets[vol.Secret.SecretName]
	if !ok {
		t.Fatalf("job %s: secret %s is not in secret-example.yaml", j.Name, vol.Secret.SecretName)
	}
	key := in // with no items, each key is a file of its name
	if len(vol.Secret.Items) > 0 {
		key = ""
		for _, it := range vol.Secret.Items {
			if it.Path == in {
				key = it.Key
			}
		}
	}
	if key == "" || !hasKey(s, key) {
		t.Errorf("job %s: %s is no key of secret %s", j.Name, in, s.Name)
	}
	for _, s := range m.secrets {
		for k, v := range s.StringData {
			if v != "CHANGE-ME" {
				t.Errorf("secret %s: %s is %q, want the placeholder CHANGE-ME", s.Name, k, v)
			}
		}
		if len(s.Data) > 0 {
			t.Errorf("secret %s: data: use stringData with placeholders", s.Name)
		}
	}
}

// secretish are the names of environment variables that hold credentials.
var secretish = regexp.MustCompile(`(?i)pass|secret|token|key`)

func hasKey(s *corev1.Secret, key string) bool {
	_, inString := s.StringData[key]
	_, inData := s.Data[key]
	return inString || inData
}

func TestPodsHardened(t *testing.T) {
	m := load(t)
	for _, j := range []*batchv1.Job{m.loader, m.plan, m.summarize} {
		t.Run(j.Name, func(t *testing.T) {
			pod := &j.Spec.Template.Spec
			c := &pod.Containers[0]
			psc := pod.SecurityContext
			if psc == nil {
				psc = &corev1.PodSecurityContext{}
			}
			sc := c.SecurityContext
			if sc == nil {
				t.Fatal("no container securityContext")
			}
			nonRoot := psc.RunAsNonRoot
			if sc.RunAsNonRoot != nil {
				nonRoot = sc.RunAsNonRoot
			}
			if nonRoot == nil || !*nonRoot {
				t.Error("runAsNonRoot is not true")
			}
			for _, uid := range []*int64{psc.RunAsUser, sc.RunAsUser} {
				if uid != nil && *uid == 0 {
					t.Error("runAsUser 0")
				}
			}
			if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
				t.Error("readOnlyRootFilesystem is not true")
			}
			if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
				t.Error("allowPrivilegeEscalation is not false")
			}
			if sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
				t.Error("capabilities do not drop ALL")
			}
			if pod.RestartPolicy != corev1.RestartPolicyNever {
				t.Errorf("restartPolicy %q, want Never", pod.RestartPolicy)
			}
			if c.Image != m.loader.Spec.Template.Spec.Containers[0].Image {
				t.Errorf("image %s, not the loader's", c.Image)
			}
			if len(c.Command) > 0 {
				t.Errorf("command %v: the image's entrypoint is cqlload and it has no shell", c.Command)
			}

			r := c.Resources
			for _, q := range []struct {
				what string
				list corev1.ResourceList
				name corev1.ResourceName
			}{
				{"requests", r.Requests, corev1.ResourceCPU},
				{"requests", r.Requests, corev1.ResourceMemory},
				{"limits", r.Limits, corev1.ResourceCPU},
				{"limits", r.Limits, corev1.ResourceMemory},
			} {
				if v, ok := q.list[q.name]; !ok || v.Sign() <= 0 {
					t.Errorf("resources.%s.%s not set", q.what, q.name)
				}
			}
			for name, req := range r.Requests {
				if lim, ok := r.Limits[name]; ok && req.Cmp(lim) > 0 {
					t.Errorf("%s request %s above its limit %s", name, req.String(), lim.String())
				}
			}
			if j == m.loader {
				// cqlload keeps about 60 MiB resident and uses about 2 CPUs.
				if mem := r.Limits[corev1.ResourceMemory]; mem.Cmp(resource.MustParse("128Mi")) < 0 {
					t.Errorf("memory limit %s: cqlload needs 128Mi to be safe", mem.String())
				}
				if cpu := r.Requests[corev1.ResourceCPU]; cpu.Cmp(resource.MustParse("1")) < 0 {
					t.Errorf("cpu request %s: one pod loads at its best with about 2 CPUs", cpu.String())
				}
			}
		})
	}
}

// TestLoaderTemporaryFiles: the loader's root file system is read-only,
// so TMPDIR must name a writable volume of the pod's own (an emptyDir):
// without one, a record kept for the error file in a temporary file
// could not be, and was rejected with only its first bytes.
func TestLoaderTemporaryFiles(t *testing.T) {
	m := load(t)
	pod := &m.loader.Spec.Template.Spec
	c := &pod.Containers[0]
	tmp := ""
	for _, e := range c.Env {
		if e.Name == "TMPDIR" {
			tmp = e.Value
		}
	}
	if tmp == "" {
		t.Fatal("no TMPDIR in the loader's environment: its root file system is read-only")
	}
	var vol string
	for _, vm := range c.VolumeMounts {
		if vm.MountPath == tmp && !vm.ReadOnly && vm.SubPath == "" {
			vol = vm.Name
		}
	}
	if vol == "" {
		t.Fatalf("TMPDIR is %s, where no writable volume is mounted", tmp)
	}
	for _, v := range pod.Volumes {
		if v.Name == vol {
			if v.EmptyDir == nil {
				t.Errorf("TMPDIR's volume %s is not an emptyDir: temporary files belong to the pod", vol)
			}
			return
		}
	}
	t.Errorf("TMPDIR's volume %s is not among the pod's volumes", vol)
}

// help runs `cqlload [args] --help`, built from the repository's source
// (../..), and parses the flags it lists. make test has built it already
// (CQLLOAD_TEST_BIN names the directory): go run would compile every
// package again, its own way.
var help = sync.OnceValues(func() (map[string]string, error) {
	if dir := os.Getenv("CQLLOAD_TEST_BIN"); dir != "" {
		return helpOf(filepath.Join(dir, "cqlload"))
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("the Go command is not on PATH (%v): this test runs `go run github.com/cqlload/cqlload/cmd/cqlload --help` from the repository's root to learn cqlload's flags", err)
	}
	root := filepath.Join("..", "..")
	if b, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !bytes.Contains(b, []byte("module github.com/cqlload/cqlload\n")) {
		return nil, fmt.Errorf("../.. is not the cqlload repository's root (its go.mod: %v)", err)
	}
	tmp, err := os.MkdirTemp("", "cqlload-help-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "cqlload")
	build := exec.Command(goTool, "build", "-o", bin, "github.com/cqlload/cqlload/cmd/cqlload")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build github.com/cqlload/cqlload/cmd/cqlload (in ../..): %v\n%s", err, out)
	}
	return helpOf(bin)
})

// helpOf runs the cqlload binary bin for its --help and its summarize
// command's.
func helpOf(bin string) (map[string]string, error) {
	out := map[string]string{}
	for _, cmd := range [][]string{{"--help"}, {"summarize", "--help"}} {
		var stdout, stderr bytes.Buffer
		run := exec.Command(bin, cmd...)
		run.Stdout, run.Stderr = &stdout, &stderr
		if err := run.Run(); err != nil {
			return nil, fmt.Errorf("%s %s: %v\n%s%s", bin, strings.Join(cmd, " "), err, stdout.String(), stderr.String())
		}
		out[cmd[0]] = stdout.String()
	}
	return out, nil
}

func knownFlags(t *testing.T) (loader, summarize flagSet) {
	t.Helper()
	h, err := help()
	if err != nil {
		t.Fatal(err)
	}
	loader, summarize = parseHelp(h["--help"]), parseHelp(h["summarize"])
	for _, f := range []string{"hosts", "table", "resume", "summary-json", "password-file", "err-file"} {
		if _, ok := loader.takesValue[f]; !ok {
			t.Fatalf("cqlload --help lists no --%s: its output was not understood:\n%s", f, h["--help"])
		}
	}
	if _, ok := summarize.takesValue["summary-json"]; !ok {
		t.Fatalf("cqlload summarize --help lists no --summary-json: its output was not understood:\n%s", h["summarize"])
	}
	return loader, summarize
}

// TestLoaderCommandLine checks the command line each pod of the loader
// Job runs, once Kubernetes has put its completion index in: cqlload
// knows every flag, and it loads split i of N.
func TestLoaderCommandLine(t *testing.T) {
	m := load(t)
	n := m.completions(t)
	c := &m.loader.Spec.Template.Spec.Containers[0]
	flags, _ := knownFlags(t)
	if _, ok := flags.takesValue["split"]; !ok {
		t.Fatal("cqlload --help (built from this checkout, ../..) lists no --split: the Job's pods would all exit 64 " +
			"(usage error). --split I/N is added by project issue 15; this check passes once it is in.")
	}
	for i := range n {
		t.Run(fmt.Sprintf("index %d", i), func(t *testing.T) {
			args, err := expandArgs(c, i)
			if err != nil {
				t.Fatal(err)
			}
			used, inputs, err := flags.parse(args)
			if err != nil {
				t.Fatalf("cqlload %s: %v", strings.Join(args, " "), err)
			}
			want := fmt.Sprintf("%d/%d", i, n)
			if got := values(used, "split"); len(got) != 1 || got[0] != want {
				t.Errorf("--split %v, want exactly one, %s", got, want)
			}
			for _, f := range []string{"password"} {
				if len(values(used, f)) > 0 {
					t.Errorf("--%s given: the password is to come from --password-file", f)
				}
			}
			for _, f := range []string{"password-file", "table", "hosts", "resume", "summary-json"} {
				if len(values(used, f)) != 1 {
					t.Errorf("--%s given %d times, want once", f, len(values(used, f)))
				}
			}
			if len(inputs) == 0 {
				t.Error("no input after the flags")
			}
		})
	}
}

// TestSummarize checks the last step: the summarize Job names the N
// summaries the loader Job's pods write, one by one (no shell expands a
// glob in the image), on the same volume.
func TestSummarize(t *testing.T) {
	m := load(t)
	n := m.completions(t)
	lj, sj := m.loader, m.summarize
	lc, sc := &lj.Spec.Template.Spec.Containers[0], &sj.Spec.Template.Spec.Containers[0]

	written := map[string]int{} // claim:path in the volume → index
	for i := range n {
		p, err := expand(rawFlag(lc.Args, "summary-json"), lc.Env, i)
		if err != nil {
			t.Fatal(err)
		}
		claim, in := m.onClaim(t, lj, p, true)
		written[claim+":"+in] = i
	}
	if len(written) != n {
		t.Fatalf("the %d splits write %d distinct summaries", n, len(written))
	}

	for _, a := range sc.Args {
		if strings.ContainsAny(a, "*?[") || strings.Contains(a, "$(") {
			t.Errorf("summarize argument %q: nothing expands it (the image has no shell)", a)
		}
	}
	_, summarizeFlags := knownFlags(t)
	used, inputs, err := summarizeFlags.parse(sc.Args[1:])
	if err != nil {
		t.Fatalf("cqlload %s: %v", strings.Join(sc.Args, " "), err)
	}
	for _, out := range values(used, "summary-json") {
		if out != "-" {
			m.onClaim(t, sj, out, true)
		}
	}
	if len(inputs) != n {
		t.Errorf("summarize merges %d summaries, want %d (completions)", len(inputs), n)
	}
	seen := map[string]bool{}
	for _, p := range inputs {
		claim, in := m.onClaim(t, sj, p, false)
		k := claim + ":" + in
		if _, ok := written[k]; !ok {
			t.Errorf("summarize reads %s (%s on claim %s), which no split writes", p, in, claim)
		}
		if seen[k] {
			t.Errorf("summarize reads %s twice", p)
		}
		seen[k] = true
	}
	for k, i := range written {
		if !seen[k] {
			t.Errorf("split %d's summary (%s) is not summarized", i, k)
		}
	}
}

// cutOptions are the flags that decide where the splits' ranges and
// their record starts lie, besides N and the inputs: a split refuses
// (exit 3) a plan made with other values. The same options set in a
// COPY statement, a --config-file or a cqlshrc are beyond this test.
var cutOptions = []string{"split-size", "header", "delimiter", "quote", "escape", "encoding", "skip-rows", "max-rows"}

// TestSplitPlanJob checks the split plan step (cqlload-plan.yaml): cqlload
// accepts its command line, it writes the plan for the loader Job's N
// where the loader's pods read it, and it lays the cuts out with the
// options the loader's pods use. A plan that does not match is refused
// by every split, so each of these is a load that would not start.
func TestSplitPlanJob(t *testing.T) {
	m := load(t)
	n := m.completions(t)
	pj, lj := m.plan, m.loader
	pc, lc := &pj.Spec.Template.Spec.Containers[0], &lj.Spec.Template.Spec.Containers[0]
	flags, _ := knownFlags(t)
	for _, f := range []string{"write-split-plan", "split-plan"} {
		if _, ok := flags.takesValue[f]; !ok {
			t.Fatalf("cqlload --help (built from this checkout, ../..) lists no --%s: the plan Job, or a loader given its plan, "+
				"would exit 64 (usage error). This check passes once split plans (--write-split-plan, --split-plan) are in.", f)
		}
	}

	// One pod writes the plan: more would read the same files again for
	// the same answer.
	if cm := pj.Spec.CompletionMode; cm != nil && *cm == batchv1.IndexedCompletion {
		t.Errorf("job %s: completionMode Indexed: one pod writes the plan for all the splits", pj.Name)
	}
	for _, f := range []struct {
		name string
		v    *int32
	}{{"completions", pj.Spec.Completions}, {"parallelism", pj.Spec.Parallelism}} {
		if f.v != nil && *f.v != 1 {
			t.Errorf("job %s: %s %d, want 1 (or unset): one pod writes the plan", pj.Name, f.name, *f.v)
		}
	}

	// The plan Job has no completion index: a $(JOB_COMPLETION_INDEX)
	// copied from the loader fails here, as it would reach cqlload
	// unexpanded.
	args, err := expandArgs(pc, 0)
	if err != nil {
		t.Fatalf("job %s: %v", pj.Name, err)
	}
	used, inputs, err := flags.parse(args)
	if err != nil {
		t.Fatalf("cqlload %s: %v", strings.Join(args, " "), err)
	}

	// --split I/N: N is what the plan is for, and a split refuses a plan
	// for another N. I is not used, but cqlload wants it below N.
	if got := values(used, "split"); len(got) != 1 {
		t.Errorf("job %s: --split %v, want exactly one, I/%d (completions of job %s)", pj.Name, got, n, lj.Name)
	} else {
		is, ns, _ := strings.Cut(got[0], "/")
		i, errI := strconv.Atoi(is)
		nn, errN := strconv.Atoi(ns)
		if errI != nil || errN != nil || nn != n || i < 0 || i >= n {
			t.Errorf("job %s: --split %s, want I/%d with I from 0 to %d (completions of job %s is %d)", pj.Name, got[0], n, n-1, lj.Name, n)
		}
	}

	// The plan goes to the shared volume, where the loader's pods, on
	// other nodes, read the same file at the same path.
	wp := values(used, "write-split-plan")
	if len(wp) != 1 {
		t.Fatalf("job %s: --write-split-plan given %d times, want once", pj.Name, len(wp))
	}
	planPath := wp[0]
	claim, in := m.onClaim(t, pj, planPath, true)
	lclaim, lin := m.onClaim(t, lj, planPath, false)
	if claim != lclaim || in != lin {
		t.Errorf("job %s writes the plan to %s (%s on claim %s), but in job %s's pods that path is %s on claim %s",
			pj.Name, planPath, in, claim, lj.Name, lin, lclaim)
	}

	// It writes a plan and nothing else, and connects to nothing: no
	// checkpoint, no summary, no credentials for the cluster.
	for _, f := range []string{"resume", "summary-json", "password", "password-file", "username"} {
		if len(values(used, f)) > 0 {
			t.Errorf("job %s: --%s given: the plan Job loads nothing and connects to nothing", pj.Name, f)
		}
	}

	// Compressed files go to one split whole: they have no cuts, and a
	// plan of them would be empty. The inputs themselves differ from the
	// example loader's on purpose (it loads .csv.gz, without a plan), so
	// they are not compared.
	if len(inputs) == 0 {
		t.Errorf("job %s: no input after the flags", pj.Name)
	}
	for _, f := range inputs {
		if l := strings.ToLower(f); strings.HasSuffix(l, ".gz") || strings.HasSuffix(l, ".zst") {
			t.Errorf("job %s: input %s is compressed: compressed files are not cut, so a plan for them is empty", pj.Name, f)
		}
	}

	// Each loader pod given the plan: its command line still parses, and
	// the options that decide the cuts are the plan's. The first pod that
	// differs is reported; the others would say the same.
	for i := range n {
		largs, err := expandArgs(lc, i)
		if err != nil {
			t.Fatalf("job %s: %v", lj.Name, err)
		}
		// Once the loader is given the plan (as cqlload-plan.yaml says),
		// it must be this one; until then, add it.
		if rawFlag(largs, "split-plan") == "" {
			largs = append(largs, "--split-plan", planPath)
		}
		lused, _, err := flags.parse(largs)
		if err != nil {
			t.Fatalf("index %d given the plan: cqlload %s: %v", i, strings.Join(largs, " "), err)
		}
		var bad []string
		if got := values(lused, "split-plan"); len(got) != 1 || got[0] != planPath {
			bad = append(bad, fmt.Sprintf("--split-plan %q, want exactly one, %s (job %s writes it)", got, planPath, pj.Name))
		}
		for _, f := range cutOptions {
			if p, l := values(used, f), values(lused, f); !slices.Equal(p, l) {
				bad = append(bad, fmt.Sprintf("--%s: job %s gives %q, job %s %q: every split would refuse the plan (exit 3)", f, pj.Name, p, lj.Name, l))
			}
		}
		if len(bad) > 0 {
			t.Errorf("job %s, index %d:\n%s", lj.Name, i, strings.Join(bad, "\n"))
			break
		}
	}
}

// TestExpand pins the $(VAR) expansion the checks rely on.
func TestExpand(t *testing.T) {
	env := []corev1.EnvVar{
		{Name: indexVar, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: indexAnnotation}}},
		{Name: "A", Value: "x"},
	}
	for _, tc := range []struct{ in, want, err string }{
		{"$(JOB_COMPLETION_INDEX)/8", "3/8", ""},
		{"/w/ckpt-$(JOB_COMPLETION_INDEX)", "/w/ckpt-3", ""},
		{"$(A)$(A)", "xx", ""},
		{"$$(A)", "$(A)", ""},
		{"a$b", "a$b", ""},
		{"$(B)", "", "no variable"},
		{"$(A", "", "unclosed"},
	} {
		got, err := expand(tc.in, env, 3)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("expand(%q): error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("expand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestParse pins the command line parsing against a help text in
// pflag's format.
func TestParse(t *testing.T) {
	fs := parseHelp(`Connection:
      --hosts string               contact points
  -u, --username string            user name
      --ssl                        connect with TLS
      --header true|false          the first line
  Example:
    cqlload --hosts h --table ks.t data.csv
`)
	for _, tc := range []struct {
		args   []string
		flags  string
		inputs string
		err    string
	}{
		{[]string{"--hosts", "h", "-u", "me", "--ssl", "a.csv"}, "hosts=h username=me ssl=", "a.csv", ""},
		{[]string{"--hosts=h", "-ume", "--header", "true", "a", "b"}, "hosts=h username=me header=true", "a b", ""},
		{[]string{"--table", "ks.t"}, "", "", "unknown flag --table"},
		{[]string{"-x"}, "", "", "unknown shorthand"},
		{[]string{"--hosts"}, "", "", "needs a value"},
	} {
		used, inputs, err := fs.parse(tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parse %v: error %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		var got []string
		for _, f := range used {
			got = append(got, f.name+"="+f.value)
		}
		if err != nil || strings.Join(got, " ") != tc.flags || strings.Join(inputs, " ") != tc.inputs {
			t.Errorf("parse %v = %v %v %v; want %s | %s", tc.args, got, inputs, err, tc.flags, tc.inputs)
		}
	}
}
