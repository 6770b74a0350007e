package file

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// pathKind says how the path option names files.
type pathKind uint8

const (
	plainPath pathKind = iota // one file
	globPath                  // a filepath.Match pattern
	dirPath                   // every regular, non-hidden file of a directory
)

// target is the resolved path option.
type target struct {
	path string
	kind pathKind
}

// resolveTarget classifies path: a pattern if it has glob metacharacters,
// a directory if it names one, else a single file (which need not exist
// yet when following).
func resolveTarget(path string) (target, error) {
	if strings.ContainsAny(path, "*?[") {
		if _, err := filepath.Match(path, ""); err != nil {
			return target{}, fmt.Errorf("file: bad glob %q: %w", path, err)
		}
		return target{path: path, kind: globPath}, nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return target{path: path, kind: dirPath}, nil
	}
	return target{path: path, kind: plainPath}, nil
}

// list returns the regular files the target names now, sorted by path. A
// plain path that does not exist yields no file.
func (t target) list() ([]string, error) {
	var names []string
	switch t.kind {
	case plainPath:
		if _, err := os.Stat(t.path); err != nil {
			if os.IsNotExist(err) {
				return nil, nil
			}
			return nil, fmt.Errorf("file: %w", err)
		}
		return []string{t.path}, nil
	case globPath:
		m, err := filepath.Glob(t.path)
		if err != nil {
			return nil, fmt.Errorf("file: glob %q: %w", t.path, err)
		}
		names = m
	case dirPath:
		ents, err := os.ReadDir(t.path)
		if err != nil {
			return nil, fmt.Errorf("file: read directory: %w", err)
		}
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), ".") {
				names = append(names, filepath.Join(t.path, e.Name()))
			}
		}
	}
	out := names[:0]
	for _, n := range names {
		if fi, err := os.Stat(n); err == nil && fi.Mode().IsRegular() {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// manifest is the order in which a following glob or directory source
// reads its files: the files present when it started from the beginning,
// sorted, then files discovered later, sorted within each discovery. An
// offset's file ordinal indexes it. With a state directory the manifest
// is kept in a file (one path per line), appended and synced before a new
// file is read, so a restart maps ordinals to the same files even when a
// late file sorts before earlier ones. Without one it is rebuilt by
// sorting, which is exact when files appear in name order (rotated logs).
type manifest struct {
	file  string // "" when not persisted
	paths []string
	known map[string]bool
}

// loadManifest reads the manifest file (if any); fresh discards it, for a
// source that starts from the beginning.
func loadManifest(file string, fresh bool) (*manifest, error) {
	m := &manifest{file: file, known: map[string]bool{}}
	if file == "" || fresh {
		return m, nil
	}
	b, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("file: read manifest: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if p := sc.Text(); p != "" && !m.known[p] {
			m.paths = append(m.paths, p)
			m.known[p] = true
		}
	}
	return m, sc.Err()
}

// add appends the listed files not yet in the manifest and persists it
// when it changed. It reports whether any was added.
func (m *manifest) add(listed []string) (bool, error) {
	n := len(m.paths)
	for _, p := range listed {
		if !m.known[p] {
			m.paths = append(m.paths, p)
			m.known[p] = true
		}
	}
	if len(m.paths) == n {
		return false, nil
	}
	return true, m.save()
}

// save writes the manifest file atomically (temp file, sync, rename).
func (m *manifest) save() error {
	if m.file == "" {
		return nil
	}
	var b bytes.Buffer
	for _, p := range m.paths {
		b.WriteString(p)
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(m.file), 0o755); err != nil {
		return fmt.Errorf("file: manifest: %w", err)
	}
	if err := writeFileAtomic(m.file, b.Bytes()); err != nil {
		return fmt.Errorf("file: manifest: %w", err)
	}
	return nil
}

// writeFileAtomic replaces name with data: it writes a temporary file in
// the same directory, syncs it, renames it over name and syncs the
// directory, so a crash leaves either the old or the new contents.
func writeFileAtomic(name string, data []byte) error {
	tmp := name + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		return err
	}
	return syncDir(filepath.Dir(name))
}

// syncDir syncs a directory so a rename in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
