-- Events: a project's activity read forward from a sequence number (the
-- activity id), by the SSE stream and subscribers resuming after a
-- disconnect. The index on (project, at) cannot serve "id > N" without
-- reading every entry of the project.
CREATE INDEX idx_activity_project_id ON activity(project, id);
