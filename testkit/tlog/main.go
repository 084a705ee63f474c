// Command tlog is Curbi's independent client of a published log (docs/RECORDER.md §Publishing the log): it serves
// the directory the recorder published on a loopback HTTP server and reads it back with the Go transparency-log
// modules (filippo.io/torchwood's C2SP tlog-tiles client, golang.org/x/mod's signed notes and tlog proofs, and
// transparency-dev's checkpoint reader and RFC 9162 inclusion verifier), none of which share code with Curbi. It checks the checkpoint's Ed25519 signature with the log's verifier key, every
// entry's inclusion, that the tiles hash to the checkpoint's root, consistency from older heads, and (with
// -witness) the witnesses' cosignature/v1 lines, against a k-of-n policy.
package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"filippo.io/torchwood"
	tdlog "github.com/transparency-dev/formats/log"
	tdproof "github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

type summary struct {
	Origin    string   `json:"origin"`
	Size      int64    `json:"size"`
	Entries   int64    `json:"entries"`
	Proved    int64    `json:"inclusion_proofs"`
	Older     []int64  `json:"consistent_with"`
	Witnesses []string `json:"witnesses"`
}

func main() {
	dir := flag.String("dir", "", "the published directory")
	vkey := flag.String("vkey", "", "the log's note verifier key (Ed25519)")
	var older, witnesses list
	flag.Var(&older, "old", "a file holding an older signed head of the log (repeatable)")
	flag.Var(&witnesses, "witness", "a witness's cosignature/v1 verifier key (repeatable)")
	required := flag.Int("required", 0, "how many of the -witness keys must have cosigned")
	flag.Parse()
	s, err := run(*dir, *vkey, older, witnesses, *required)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tlog:", err)
		os.Exit(1)
	}
	out, _ := json.Marshal(s)
	fmt.Println(string(out))
}

func run(dir, vkey string, older, witnesses []string, required int) (*summary, error) {
	verifier, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, fmt.Errorf("-vkey: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(dir)), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	fetcher, err := torchwood.NewTileFetcher("http://" + ln.Addr().String() + "/")
	if err != nil {
		return nil, err
	}
	text, err := fetcher.ReadEndpoint(ctx, "checkpoint")
	if err != nil {
		return nil, fmt.Errorf("fetching the checkpoint: %w", err)
	}
	n, err := note.Open(text, note.VerifierList(verifier))
	if err != nil {
		return nil, fmt.Errorf("the checkpoint's signature: %w", err)
	}
	cp, err := torchwood.ParseCheckpoint(n.Text)
	if err != nil {
		return nil, fmt.Errorf("the checkpoint: %w", err)
	}
	if cp.Origin != verifier.Name() {
		return nil, fmt.Errorf("the checkpoint's origin %q is not the key's name %q", cp.Origin, verifier.Name())
	}
	// The same checkpoint through transparency-dev's own reader, which checks origin, size and root hash.
	tdcp, _, _, err := tdlog.ParseCheckpoint(text, verifier.Name(), verifier)
	if err != nil {
		return nil, fmt.Errorf("the checkpoint (transparency-dev/formats): %w", err)
	}
	if tdcp.Size != uint64(cp.N) || !bytes.Equal(tdcp.Hash, cp.Hash[:]) {
		return nil, fmt.Errorf("transparency-dev/formats read size %d, root %x; torchwood %d, %x", tdcp.Size, tdcp.Hash, cp.N, cp.Hash[:])
	}
	s := &summary{Origin: cp.Origin, Size: cp.N, Older: []int64{}, Witnesses: []string{}}
	tree := tlog.Tree{N: cp.N, Hash: cp.Hash}

	// Every entry, through the tiles client (it checks each tile against the tree as it goes).
	client, err := torchwood.NewClient(fetcher)
	if err != nil {
		return nil, err
	}
	hashes := torchwood.TileHashReaderWithContext(ctx, tree, fetcher)
	for s.Entries < tree.N {
		before := s.Entries
		for i, entry := range client.Entries(ctx, tree, s.Entries) {
			if i != s.Entries {
				return nil, fmt.Errorf("entry %d came as %d", s.Entries, i)
			}
			// A compact receipt: its signing domain, then base64url payload, signature and key id.
			if !bytes.HasPrefix(entry, []byte("curbi-receipt-v1.")) || bytes.Count(entry, []byte(".")) < 3 {
				return nil, fmt.Errorf("entry %d is not a compact receipt: %.40q", i, entry)
			}
			// Inclusion of the entry under the checkpoint, from the tiles, checked against its root.
			proof, err := tlog.ProveRecord(tree.N, i, hashes)
			if err != nil {
				return nil, fmt.Errorf("proving entry %d: %w", i, err)
			}
			if err := tlog.CheckRecord(proof, tree.N, tree.Hash, i, tlog.RecordHash(entry)); err != nil {
				return nil, fmt.Errorf("entry %d: %w", i, err)
			}
			// And by transparency-dev/merkle's RFC 9162 verifier, from the entry's own leaf hash.
			path := make([][]byte, len(proof))
			for k := range proof {
				path[k] = proof[k][:]
			}
			leaf := rfc6962.DefaultHasher.HashLeaf(entry)
			if err := tdproof.VerifyInclusion(rfc6962.DefaultHasher, uint64(i), uint64(tree.N), leaf, path, tree.Hash[:]); err != nil {
				return nil, fmt.Errorf("entry %d (transparency-dev/merkle): %w", i, err)
			}
			s.Entries++
			s.Proved++
		}
		if err := client.Err(); err != nil {
			return nil, fmt.Errorf("reading entries: %w", err)
		}
		if s.Entries == before {
			return nil, fmt.Errorf("no entries past %d of %d", s.Entries, tree.N)
		}
	}
	root, err := tlog.TreeHash(tree.N, hashes)
	if err != nil || root != tree.Hash {
		return nil, fmt.Errorf("the tiles do not hash to the checkpoint's root (%v)", err)
	}

	for _, file := range older {
		old, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		on, err := note.Open(old, note.VerifierList(verifier))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		ocp, err := torchwood.ParseCheckpoint(on.Text)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		proof, err := tlog.ProveTree(tree.N, ocp.N, hashes)
		if err != nil {
			return nil, fmt.Errorf("%s: proving consistency: %w", file, err)
		}
		if err := tlog.CheckTree(proof, tree.N, tree.Hash, ocp.N, ocp.Hash); err != nil {
			return nil, fmt.Errorf("%s: not a prefix of the published log: %w", file, err)
		}
		s.Older = append(s.Older, ocp.N)
	}

	for _, w := range witnesses {
		name, ok, err := cosigned(text, n.Text, w)
		if err != nil {
			return nil, fmt.Errorf("-witness %s: %w", w, err)
		}
		if ok {
			s.Witnesses = append(s.Witnesses, name)
		}
	}
	if len(s.Witnesses) < required {
		return s, fmt.Errorf("%d of the %d witnesses cosigned the checkpoint; %d required", len(s.Witnesses), len(witnesses), required)
	}
	return s, nil
}

// cosigned reports whether the note carries a valid cosignature/v1 line (c2sp.org/tlog-cosignature) by the witness
// whose verifier key is vkey: `<name>+<hash>+base64(0x04 || key)`, the line's bytes the key hash, a big-endian
// timestamp and an Ed25519 signature over "cosignature/v1\ntime <T>\n" followed by the note text.
func cosigned(signed []byte, text, vkey string) (string, bool, error) {
	parts := strings.SplitN(vkey, "+", 3)
	if len(parts) != 3 {
		return "", false, errors.New("not a verifier key")
	}
	name := parts[0]
	raw, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil || len(raw) != 33 || raw[0] != 0x04 {
		return "", false, errors.New("not a cosignature/v1 key")
	}
	h := sha256.Sum256(append([]byte(name+"\n"), raw...))
	hash := binary.BigEndian.Uint32(h[:4])
	if want, err := strconv.ParseUint(parts[1], 16, 32); err != nil || uint32(want) != hash {
		return "", false, errors.New("the key hash does not match")
	}
	sigs := string(signed[len(text)+1:])
	for _, line := range strings.Split(strings.TrimSuffix(sigs, "\n"), "\n") {
		rest, ok := strings.CutPrefix(line, "\u2014 "+name+" ")
		if !ok {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(rest)
		if err != nil || len(b) != 4+8+64 || binary.BigEndian.Uint32(b) != hash {
			continue
		}
		t := binary.BigEndian.Uint64(b[4:12])
		msg := fmt.Sprintf("cosignature/v1\ntime %d\n%s", t, text)
		if !ed25519.Verify(ed25519.PublicKey(raw[1:]), []byte(msg), b[12:]) {
			return name, false, errors.New("a cosignature line does not verify")
		}
		return name, true, nil
	}
	return name, false, nil
}
