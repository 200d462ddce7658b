package recall

import (
	"context"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/contextpack"
)

// AgentPatterns is how many of an agent's memories the "{agent} Learned
// Patterns" section shows (seed 002's buildMemoryContext: five).
const AgentPatterns = 5

// agentScan bounds the agent's memories read to choose them.
const agentScan = 50

// withAgentPatterns adds seed 002's "{agent} Learned Patterns" section: the
// live memories req.Agent wrote, highest confidence first, at most
// AgentPatterns, leaving out those the block already shows. It is added
// to a block asked for an agent by name (`cairn context --agent A`, the
// MCP context tool), not to the hooks' blocks (which choose their tiers):
// their agent is the tool itself, whose memories are mostly sessions.
func withAgentPatterns(ctx context.Context, eng Service, req cairn.ContextRequest, p Profile, sel *Selection, sections []contextpack.Section) ([]contextpack.Section, error) {
	if req.Agent == "" || p.Tiers != nil {
		return sections, nil
	}
	mems, _, err := eng.FindMemories(ctx, cairn.MemoryFilter{Project: req.Project, Agent: req.Agent,
		Sort: cairn.SortConfidenceDesc, Limit: agentScan, SkipTotal: true})
	if err != nil {
		return nil, err
	}
	shown := map[string]bool{}
	for _, it := range sel.Items {
		shown[it.Memory.ID] = true
	}
	now := eng.Now()
	var items []contextpack.Item
	for _, m := range mems {
		if len(items) == AgentPatterns {
			break
		}
		if shown[m.ID] || cairn.FacetsOf(m.Type)&cairn.FacetRecord != 0 || !m.Live(now) || req.Session != "" && m.SessionID == req.Session {
			continue
		}
		items = append(items, contextpack.Item{ID: m.ID, Type: m.Type, Title: m.Title, Content: m.Content, Tags: m.Tags,
			FileRefs: m.FileRefs, CreatedAt: m.CreatedAt, Value: 1 + m.Confidence, Flag: m.Flag})
	}
	if len(items) == 0 {
		return sections, nil
	}
	sec := contextpack.Section{Kind: "agent_patterns", Title: req.Agent + " Learned Patterns", Priority: 1, Items: items}
	if len(sel.Terms) > 0 {
		sec.Share, sec.ShareGroup = StaticShare, "static"
	}
	// After the pinned memories and the critical constraints, as in seed 002.
	at := 0
	for i, s := range sections {
		if s.Kind == "pinned" || s.Kind == "constraints" {
			at = i + 1
		}
	}
	out := make([]contextpack.Section, 0, len(sections)+1)
	out = append(out, sections[:at]...)
	out = append(out, sec)
	return append(out, sections[at:]...), nil
}
