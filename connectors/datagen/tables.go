package datagen

import (
	"math/bits"
	"strconv"
	"sync"
)

// Word lists of the reference generator.
var (
	firstNames = []string{"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"}
	lastNames  = []string{"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"}
	usCities   = []string{"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"}
	usStates   = []string{"AZ", "CA", "ID", "OR", "WA", "WY"}
	hotChannel = []string{"Google", "Facebook", "Baidu", "Apple"}
)

// Sizes of the precomputed tables.
const (
	numChannels = 10000   // channel-<i> for i < numChannels
	lettersLen  = 1 << 18 // random a–z: the pool every extra is cut from
	textLen     = 1 << 17 // random a–z with 1 in 13 spaces: names, descriptions, emails
)

// tableSet holds every string the generator hands out, computed once per
// process from a fixed seed. Rows reference substrings of these, so
// generating a bid or an auction allocates nothing; the tables are shared
// by every generator and never change after they are built.
type tableSet struct {
	letters    string // lettersLen random lowercase letters
	text       string // textLen random lowercase letters and spaces
	fullNames  []string
	channels   []string
	channelURL []string
	hotURL     []string
}

var (
	tablesOnce sync.Once
	tablesVal  *tableSet
)

// sharedTables returns the process-wide tables, building them on first use.
func sharedTables() *tableSet {
	tablesOnce.Do(func() { tablesVal = buildTables() })
	return tablesVal
}

// buildTables computes the tables from a fixed seed, so they are the same
// in every process and for every generator seed.
func buildTables() *tableSet {
	r := eventRand{s: mix64(0x6e65786d61726b)} // "nexmark"
	t := &tableSet{
		letters: randomText(&r, lettersLen, false),
		text:    randomText(&r, textLen, true),
	}
	for _, f := range firstNames {
		for _, l := range lastNames {
			t.fullNames = append(t.fullNames, f+" "+l)
		}
	}
	for range hotChannel {
		t.hotURL = append(t.hotURL, baseURL(&r))
	}
	t.channels = make([]string, numChannels)
	t.channelURL = make([]string, numChannels)
	for i := range numChannels {
		t.channels[i] = "channel-" + strconv.Itoa(i)
		u := baseURL(&r)
		if r.intn(10) > 0 { // as the reference: 9 in 10 channel URLs carry the id
			u += "&channel_id=" + strconv.FormatUint(uint64(bits.Reverse32(uint32(i))), 10)
		}
		t.channelURL[i] = u
	}
	return t
}

// randomText returns n random lowercase letters, with 1 in 13 a space when
// spaces is set (the reference's nextString alphabet).
func randomText(r *eventRand, n int, spaces bool) string {
	b := make([]byte, n)
	for i := range b {
		if spaces && r.intn(13) == 0 {
			b[i] = ' '
			continue
		}
		b[i] = byte('a' + r.intn(26))
	}
	return string(b)
}

// baseURL returns a reference-style item URL with three random path parts.
func baseURL(r *eventRand) string {
	part := func() string { return randomWord(r, 5) }
	return "https://www.nexmark.com/" + part() + "/" + part() + "/" + part() + "/item.htm?query=1"
}

// randomWord is the reference's nextString(max): 3 to max-1 characters of
// the spaced alphabet, trimmed.
func randomWord(r *eventRand, maxLen int) string {
	n := minStringLen + int(r.intn(uint64(maxLen-minStringLen)))
	return trimSpaces(randomText(r, n, true))
}

// minStringLen is the reference's MIN_STRING_LENGTH.
const minStringLen = 3

// trimSpaces removes leading and trailing ASCII spaces without allocating.
func trimSpaces(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] == ' ' {
		i++
	}
	for j > i && s[j-1] == ' ' {
		j--
	}
	return s[i:j]
}
