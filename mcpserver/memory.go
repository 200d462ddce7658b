package mcpserver

import "github.com/modelcontextprotocol/go-sdk/mcp"

// registerMemoryTool registers Anthropic's file-style memory tool
// (memory_20250818) as the MCP tool "memory", backed by package memtool.
// Package memtool is not part of the module yet, so this registers
// nothing; the tool's input is command, path, view_range, file_text,
// old_str, new_str, insert_line, insert_text, old_path and new_path.
func registerMemoryTool(srv *mcp.Server, s *server) {}
