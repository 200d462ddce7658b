package httpapi

import (
	"net/http"

	"github.com/cairn-dev/cairn"
)

// A project's settings: the command that owns the project's folder writes
// them (PUT) when its cairn.toml changed, and every process that answers
// for the project applies them; GET shows what is stored, DELETE forgets
// it (the server's own settings then apply).

func (s *Server) getSettings(w http.ResponseWriter, r *http.Request, p *project) error {
	ps, err := p.svc.ProjectSettings(r.Context(), p.name)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ps)
	return nil
}

func (s *Server) putSettings(w http.ResponseWriter, r *http.Request, p *project) error {
	var in cairn.ProjectSettings
	if err := readJSON(w, r, MaxSettingsBytes, &in); err != nil {
		return err
	}
	if in.Settings == nil {
		return cairn.Errorf(cairn.EINVALID, "give settings: the project's settings, as cairn config --json shows them")
	}
	if s.opts.CheckSettings == nil {
		return cairn.Errorf(cairn.EUNAVAILABLE, "this server does not store settings")
	}
	if err := s.opts.CheckSettings(in.Settings); err != nil {
		return cairn.Errorf(cairn.EINVALID, "settings: %s", cairn.ErrorMessage(err))
	}
	in.UpdatedAt = p.svc.Now()
	if err := p.svc.SetProjectSettings(r.Context(), p.name, &in); err != nil {
		return err
	}
	if s.opts.SettingsStored != nil {
		s.opts.SettingsStored(r.Context(), p.name, &in)
	}
	writeJSON(w, http.StatusOK, settingsOut{Project: p.name, Stored: true})
	return nil
}

func (s *Server) deleteSettings(w http.ResponseWriter, r *http.Request, p *project) error {
	if err := p.svc.DeleteProjectSettings(r.Context(), p.name); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, settingsOut{Project: p.name})
	return nil
}

// settingsOut is the answer of PUT and DELETE /settings: whether the
// project now has stored settings.
type settingsOut struct {
	Project string `json:"project"`
	Stored  bool   `json:"stored"`
}

// MaxSettingsBytes bounds the body of PUT /settings.
const MaxSettingsBytes = cairn.MaxSettingsBytes
