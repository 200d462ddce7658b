package recall

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn"
)

// mergeConflicts shows two memories in conflict (cairn.ConflictTagPrefix)
// as one item: the first of the two the selection holds becomes a
// "Conflict" item whose text gives both sides with their dates and ids,
// newest last, and the other is dropped from the selection. A side that
// the selection does not hold is read from the store; a side superseded,
// expired or gone is no conflict any more. The block then never holds two
// contradicting items without saying so.
func mergeConflicts(ctx context.Context, eng Service, sel *Selection) error {
	now := eng.Now()
	at := map[string]int{}
	for i, it := range sel.Items {
		at[it.Memory.ID] = i
	}
	drop := map[int]bool{}
	for i := range sel.Items {
		if drop[i] {
			continue
		}
		m := sel.Items[i].Memory
		for _, id := range m.ConflictsWith() {
			var other *cairn.Memory
			if j, ok := at[id]; ok {
				if drop[j] {
					continue
				}
				other = sel.Items[j].Memory
				drop[j] = true
			} else {
				o, err := eng.FindMemoryByID(ctx, id)
				if cairn.ErrorCode(err) == cairn.ENOTFOUND {
					continue
				}
				if err != nil {
					return err
				}
				other = o
			}
			if !other.Live(now) {
				continue
			}
			sel.Items[i].Memory = conflictMemory(m, other)
			break
		}
	}
	if len(drop) == 0 {
		return nil
	}
	kept := sel.Items[:0]
	for i, it := range sel.Items {
		if !drop[i] {
			kept = append(kept, it)
		}
	}
	sel.Items = kept
	return nil
}

// conflictMemory is the item that stands for a and b: a's id (its use is
// recorded) and type (its section), the title "Conflict", both sides in
// its text.
func conflictMemory(a, b *cairn.Memory) *cairn.Memory {
	first, second := b, a
	if a.CreatedAt.Before(b.CreatedAt) || a.CreatedAt.Equal(b.CreatedAt) && a.ID < b.ID {
		first, second = a, b
	}
	c := *a
	c.Title = "Conflict"
	c.Content = fmt.Sprintf("%q (%s, %s) vs. later %q (%s, %s): ask which holds; `cairn supersede OLD NEW` resolves it",
		first.Content, first.CreatedAt.UTC().Format("2006-01-02"), first.ID,
		second.Content, second.CreatedAt.UTC().Format("2006-01-02"), second.ID)
	c.Flag = joinFlags(first.Flag, second.Flag)
	return &c
}

func joinFlags(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "" || a == b:
		return a
	}
	return a + "," + b
}
