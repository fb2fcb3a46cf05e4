"""The agent: sessions, the turn loop, tools, explore branches and the engine facade."""
