/**
 * The Goals side panel: a TreeView of the active session's goal tree, fed by
 * `cairn/goalTreeChanged` and `cairn/goalTree`, with the four goal verbs
 * (focus, done, abandon, add) sent as `cairn/goal`.
 */
import * as vscode from 'vscode';
import { CairnClient } from './client';
import { Command, View } from './constants';
import { errorText } from './errorText';
import { Goal, GoalParams, GoalStatus, GoalTreeView, Method } from './protocol';

const STATUS_ICONS: Record<GoalStatus, vscode.ThemeIcon> = {
  pending: new vscode.ThemeIcon('circle-outline'),
  in_progress: new vscode.ThemeIcon('play-circle', new vscode.ThemeColor('charts.blue')),
  completed: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  abandoned: new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground')),
};
const CURRENT_ICON = new vscode.ThemeIcon('target', new vscode.ThemeColor('charts.yellow'));
const STATUS_LABELS: Record<GoalStatus, string> = {
  pending: 'pending',
  in_progress: 'in progress',
  completed: 'done',
  abandoned: 'abandoned',
};

/** Finds a goal by id anywhere in a list of goals. */
export function findGoal(goals: readonly Goal[], id: string): Goal | undefined {
  for (const goal of goals) {
    if (goal.id === id) {
      return goal;
    }
    const found = findGoal(goal.children, id);
    if (found) {
      return found;
    }
  }
  return undefined;
}

export class GoalTreeProvider implements vscode.TreeDataProvider<Goal>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Goal | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly treeView: vscode.TreeView<Goal>;
  private readonly subscriptions: vscode.Disposable[];
  /** The goal tree shown (the tests read it). */
  view: GoalTreeView | undefined;

  constructor(private readonly client: CairnClient) {
    // When empty, the view shows its welcome content (package.json `viewsWelcome`).
    this.treeView = vscode.window.createTreeView(View.goals, { treeDataProvider: this, showCollapseAll: true });
    this.subscriptions = [
      this.treeView,
      client.onGoalTreeChanged.event((view) => {
        if (client.sessionId === undefined || client.sessionId === view.sessionId) {
          this.show(view);
        }
      }),
      client.onDidStart.event(() => void this.refresh()),
      client.onDidChangeSession.event(() => void this.refresh()),
      vscode.commands.registerCommand(Command.goalsRefresh, () => this.refresh()),
      vscode.commands.registerCommand(Command.goalsAdd, (text?: string) => this.add(undefined, text)),
      vscode.commands.registerCommand(Command.goalFocus, (goal?: Goal) => this.focus(goal)),
      vscode.commands.registerCommand(Command.goalDone, (goal?: Goal, text?: string) => this.finish(goal, 'done', text)),
      vscode.commands.registerCommand(Command.goalAbandon, (goal?: Goal, text?: string) =>
        this.finish(goal, 'abandon', text),
      ),
      vscode.commands.registerCommand(Command.goalAddSub, (goal?: Goal, text?: string) => this.add(goal, text)),
    ];
  }

  dispose(): void {
    this.subscriptions.forEach((s) => s.dispose());
    this.changed.dispose();
  }

  getTreeItem(goal: Goal): vscode.TreeItem {
    const isCurrent = this.view?.tree.currentId === goal.id;
    const item = new vscode.TreeItem(
      goal.description,
      goal.children.length > 0 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `${this.view?.sessionId ?? ''}:${goal.id}`;
    item.iconPath = isCurrent ? CURRENT_ICON : STATUS_ICONS[goal.status];
    item.description = [isCurrent ? 'current' : '', goal.summary ?? ''].filter(Boolean).join(' · ');
    item.contextValue = `goal.${goal.status}`;
    const tooltip = new vscode.MarkdownString();
    tooltip.appendMarkdown(`**${goal.id}** ${escapeMarkdown(goal.description)}\n\n`);
    tooltip.appendMarkdown(`Status: ${STATUS_LABELS[goal.status]}${isCurrent ? ' (current)' : ''}`);
    if (goal.summary) {
      const label = goal.status === 'abandoned' ? 'Reason' : 'Summary';
      tooltip.appendMarkdown(`\n\n${label}: ${escapeMarkdown(goal.summary)}`);
    }
    item.tooltip = tooltip;
    item.accessibilityInformation = { label: `${goal.description}, ${STATUS_LABELS[goal.status]}` };
    return item;
  }

  getChildren(goal?: Goal): Goal[] {
    return goal ? goal.children : (this.view?.tree.goals ?? []);
  }

  /** Reloads the goal tree of the active session from the server. */
  async refresh(): Promise<GoalTreeView | undefined> {
    try {
      const view = await this.client.request(Method.goalTree, {});
      this.show(view);
      return view;
    } catch (error) {
      this.treeView.message = errorText(error);
      return undefined;
    }
  }

  /** Sends one `cairn/goal` verb and shows the resulting tree. */
  async apply(params: GoalParams): Promise<GoalTreeView | undefined> {
    try {
      const view = await this.client.request(Method.goal, params);
      this.show(view);
      return view;
    } catch (error) {
      void vscode.window.showErrorMessage(errorText(error));
      return undefined;
    }
  }

  private show(view: GoalTreeView): void {
    this.view = view;
    this.treeView.message = undefined;
    this.treeView.description = view.tree.mission || undefined;
    this.changed.fire(undefined);
  }

  private target(goal: Goal | undefined): Goal | undefined {
    const id = goal?.id ?? this.view?.tree.currentId;
    return id && this.view ? findGoal(this.view.tree.goals, id) : goal;
  }

  private async focus(goal: Goal | undefined): Promise<GoalTreeView | undefined> {
    const target = this.target(goal);
    return target ? this.apply({ focus: target.id }) : undefined;
  }

  private async finish(goal: Goal | undefined, verb: 'done' | 'abandon', text?: string): Promise<GoalTreeView | undefined> {
    const target = this.target(goal);
    if (!target) {
      void vscode.window.showInformationMessage('Cairn: select a goal first.');
      return undefined;
    }
    const answer =
      text ??
      (await vscode.window.showInputBox({
        title: `${verb === 'done' ? 'Done' : 'Abandon'}: ${target.description}`,
        prompt: verb === 'done' ? 'A short summary of what was achieved' : 'Why is this goal abandoned?',
        ignoreFocusOut: true,
        validateInput: (value) => (value.trim() ? undefined : 'Required'),
      }));
    if (!answer?.trim()) {
      return undefined;
    }
    if (this.view?.tree.currentId !== target.id && !(await this.apply({ focus: target.id }))) {
      return undefined;
    }
    return this.apply(verb === 'done' ? { done: answer.trim() } : { abandon: answer.trim() });
  }

  private async add(parent: Goal | undefined, text?: string): Promise<GoalTreeView | undefined> {
    const answer =
      text ??
      (await vscode.window.showInputBox({
        title: parent ? `Add sub-goals under: ${parent.description}` : 'Add goals',
        prompt: 'One or more goals, comma-separated',
        ignoreFocusOut: true,
      }));
    if (!answer?.trim()) {
      return undefined;
    }
    if (parent && this.view?.tree.currentId !== parent.id && !(await this.apply({ focus: parent.id }))) {
      return undefined;
    }
    return this.apply({ add: answer.trim() });
  }
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+!|<>]/g, '\\$&');
}
