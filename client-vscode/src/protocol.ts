/** TypeScript shapes of the custom LSP messages (PROTOCOL.md), camelCase as on the wire. */

export type GoalStatus = 'pending' | 'in_progress' | 'completed' | 'abandoned';

export interface Goal {
  id: string;
  description: string;
  status: GoalStatus;
  summary: string | null;
  children: Goal[];
}

export interface GoalTree {
  mission: string;
  currentId: string | null;
  goals: Goal[];
}

export interface GoalTreeView {
  sessionId: string;
  tree: GoalTree;
  rendered: string;
}

export interface GoalParams {
  sessionId?: string;
  add?: string;
  done?: string;
  abandon?: string;
  focus?: string;
}

export type Mode = 'build' | 'plan' | 'review';

export interface TurnParams {
  sessionId?: string;
  message: string;
  mode?: Mode;
  references?: string[];
  model?: string;
}

export type FinishReason = 'stop' | 'cancelled' | 'error' | 'stepLimit';

export interface TurnResult {
  sessionId: string;
  turnId: string;
  finishReason: FinishReason;
  text: string;
  usage: { inputTokens: number; outputTokens: number };
  error?: string | null;
}

export type TurnEventKind = 'text' | 'reasoning' | 'toolStart' | 'toolEnd' | 'error' | 'end';

export interface TurnEvent {
  sessionId: string;
  turnId: string;
  kind: TurnEventKind;
  text?: string | null;
  tool?: string | null;
  callId?: string | null;
  ok?: boolean | null;
}

export interface CompactionEvent {
  sessionId: string;
  stage: 'start' | 'done' | 'failed';
  kind: 'prune' | 'summary' | 'goal';
  tokensBefore: number;
  tokensAfter?: number | null;
  error?: string | null;
}

export interface ContextStats {
  sessionId: string;
  contextWindow: number;
  maxOutputTokens: number;
  toolSchemaTokens: number;
  safetyMargin: number;
  availableInput: number;
  usedInput: number;
  bySource: Record<string, number>;
  compaction: { count: number; summaryTokens: number; watermark: string | null; inProgress: boolean };
}

export interface ManifestBlock {
  source: string;
  priority: number;
  tokens: number;
  version: string;
  included: boolean;
  reason: string | null;
  ref: string | null;
}

export interface Manifest {
  sessionId: string;
  callId: string | null;
  model: string;
  availableInput: number;
  usedInput: number;
  blocks: ManifestBlock[];
}

export interface CompactResult {
  sessionId: string;
  tokensBefore: number;
  tokensAfter: number;
  kind: 'prune' | 'summary' | 'none';
}

export interface SessionInfo {
  sessionId: string;
  title: string;
  parentId?: string | null;
  createdAt: string;
  updatedAt: string;
  turns: number;
}

export interface SessionsResult {
  sessions: SessionInfo[];
}

/** LSP `Diagnostic` as sent in `cairn/diagnostics`. */
export interface WireDiagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  message: string;
  severity: 1 | 2 | 3 | 4;
  source?: string;
  code?: string | number;
}

export interface DiagnosticsParams {
  uri: string;
  diagnostics: WireDiagnostic[];
}
