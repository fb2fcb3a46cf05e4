// Drives `cairn serve` with vscode-languageserver-protocol (VS Code's own JSON-RPC stack).
// Env: PYTHON (interpreter), WORKSPACE (folder). Prints one JSON line with what it saw;
// exits 1 on a timeout or a protocol error.
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection, StreamMessageReader, StreamMessageWriter,
  InitializeRequest, InitializedNotification, DidOpenTextDocumentNotification,
  CodeActionRequest, ExecuteCommandRequest, ApplyWorkspaceEditRequest,
  WorkDoneProgressCreateRequest, RegistrationRequest, ShutdownRequest, ExitNotification,
  NotificationType, RequestType, ResponseError,
} from 'vscode-languageserver-protocol/node.js';

const TIMEOUT_MS = 60000;
const GoalTreeChanged = new NotificationType('cairn/goalTreeChanged');
const Diagnostics = new NotificationType('cairn/diagnostics');
const Goal = new RequestType('cairn/goal');
const GoalTree = new RequestType('cairn/goalTree');
const within = (promise, what) => Promise.race([promise, new Promise((_, reject) =>
  setTimeout(() => reject(new Error(`timeout waiting for ${what}`)), TIMEOUT_MS))]);

const root = process.env.WORKSPACE;
const server = spawn(process.env.PYTHON ?? 'python3', ['-m', 'cairn', 'serve'],
  { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
const connection = createProtocolConnection(
  new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin));
const changes = [];
const edits = [];
connection.onNotification(GoalTreeChanged, (params) => changes.push(params));
connection.onRequest(ApplyWorkspaceEditRequest.type, (params) => {
  edits.push(params.edit);
  return { applied: true };
});
connection.onRequest(WorkDoneProgressCreateRequest.type, () => null);
connection.onRequest(RegistrationRequest.type, () => null);
connection.listen();

let seen = null;
try {
  const rootUri = pathToFileURL(root).href;
  const init = await within(connection.sendRequest(InitializeRequest.type, {
    processId: process.pid, rootUri, workspaceFolders: [{ uri: rootUri, name: 'ws' }],
    capabilities: { workspace: { applyEdit: true, workspaceEdit: { documentChanges: true } },
                    window: { workDoneProgress: true } },
    initializationOptions: { maxOutputTokens: 2048 },
  }), 'initialize');
  await connection.sendNotification(InitializedNotification.type, {});

  const uri = pathToFileURL(`${root}/app.py`).href;
  await connection.sendNotification(DidOpenTextDocumentNotification.type,
    { textDocument: { uri, languageId: 'python', version: 1, text: 'x = 1\n' } });
  await connection.sendNotification(Diagnostics, { uri, diagnostics: [{
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } },
    message: 'x should be 2', severity: 1 }] });

  const added = await within(connection.sendRequest(Goal, { add: 'from node' }), 'cairn/goal');
  const tree = await within(connection.sendRequest(GoalTree, {}), 'cairn/goalTree');
  let badGoal = null;
  try {
    await connection.sendRequest(Goal, { focus: 'nope' });
  } catch (error) {
    badGoal = error instanceof ResponseError ? { code: error.code, message: error.message } : String(error);
  }
  const actions = await within(connection.sendRequest(CodeActionRequest.type, {
    textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    context: { diagnostics: [] } }), 'codeAction');
  const fix = await within(connection.sendRequest(ExecuteCommandRequest.type, {
    command: actions[0].command.command, arguments: actions[0].command.arguments }), 'cairn.fix');
  seen = {
    serverName: init.serverInfo.name, added, tree, badGoal, changes,
    actions: actions.map((a) => ({ title: a.title, kind: a.kind, command: a.command.command })),
    fix, edits,
  };
  await within(connection.sendRequest(ShutdownRequest.type), 'shutdown');
  await connection.sendNotification(ExitNotification.type);
} catch (error) {
  console.error('FAIL:', error.message);
}
console.log(JSON.stringify(seen));
connection.dispose();
server.kill();
process.exit(seen ? 0 : 1);
