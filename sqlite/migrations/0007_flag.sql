-- Why a memory's text reads as instructions to the agent rather than as
-- data (the engine's kinds, comma-separated; '' when it does not): set
-- when the memory is written, shown beside it wherever it is rendered.
ALTER TABLE memories ADD COLUMN flag TEXT NOT NULL DEFAULT '';
