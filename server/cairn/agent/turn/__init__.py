"""The turn: its inputs and scope, the loop, tool calls, explore branches and the turn's context builds."""
