/**
 * Markdown for the chat webview: markdown-it with raw HTML disabled (so the
 * model's text can never add markup or scripts; the page's CSP allows only
 * its own script anyway), links made from bare http(s) URLs, and code fences
 * highlighted by highlight.js (the languages an agent's answers mostly use;
 * others are shown plain). The result is HTML the page inserts; every code
 * block gets Copy and Insert buttons there (chat.ts).
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdownLanguage from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import MarkdownIt from 'markdown-it';

const LANGUAGES = {
  bash, c, cpp, css, diff, go, ini, java, javascript, json, markdown: markdownLanguage, python, rust, shell, sql,
  typescript, xml, yaml,
};
for (const [name, language] of Object.entries(LANGUAGES)) {
  hljs.registerLanguage(name, language);
}
hljs.registerAliases(['toml'], { languageName: 'ini' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['sh', 'zsh', 'console'], { languageName: 'bash' });
hljs.registerAliases(['patch'], { languageName: 'diff' });

/** The highlighted HTML of `code` in `language` (escaped plain text when it is not known). */
export function highlight(code: string, language: string): string {
  const name = language.trim().toLowerCase();
  if (name && hljs.getLanguage(name)) {
    return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  }
  return escapeHtml(code);
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch);
}

const md: MarkdownIt = new MarkdownIt({
  html: false,
  linkify: true,
  breaks: false,
  highlight: (code, language) => highlight(code, language),
});

// Only real URLs become links: "sample.py" is a file name, not the domain of Paraguay.
md.linkify.set({ fuzzyLink: false });

/** The HTML of a Markdown text (raw HTML in it is shown as text). */
export function renderMarkdown(text: string): string {
  return md.render(text);
}
