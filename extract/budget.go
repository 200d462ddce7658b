package extract

import (
	"time"

	"github.com/cairn-dev/cairn/modelbudget"
)

// The budget types are package modelbudget's, shared with every client of
// a model endpoint.
type (
	Budget     = modelbudget.Budget
	DaySpend   = modelbudget.DaySpend
	MemBudget  = modelbudget.MemBudget
	FileBudget = modelbudget.FileBudget
)

// Day returns the budget day (UTC, "2006-01-02") of t.
func Day(t time.Time) string { return modelbudget.Day(t) }
