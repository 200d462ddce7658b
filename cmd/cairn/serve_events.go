package main

// `cairn serve`'s event stream: GET /api/projects/{project}/events, the
// project's events as server-sent events (package eventstream), mounted
// on the REST API, whose host, origin and token checks it gets.

// eventsPattern is where the events are served.
const eventsPattern = "GET /api/projects/{project}/events"
