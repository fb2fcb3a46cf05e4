"""Outlines of every supported language: nested signature lines with line ranges."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cairn.code import language_for_path, outline

PYTHON = '''\
import os

LIMIT = 10


class Store:
    """Keeps values."""

    def __init__(self, root):
        self.root = root

    @property
    def size(self):
        return 0


async def fetch(url,
                timeout=3):
    return url
'''

A_JAVA = """\
package demo;

public class Greeter {
    private final String name;

    public Greeter(String name) {
        this.name = name;
    }

    @Override
    public String toString() {
        return name;
    }

    interface Listener {
        void onGreet(String who);
    }
}
"""

A_C = """\
#include <stdio.h>

struct point {
    int x;
    int y;
};

typedef struct point point_t;

static int add(int a, int b) {
    return a + b;
}

char *name(void);

int main(void) {
    return add(1, 2);
}
"""

A_CPP = """\
#include <string>

namespace geo {

class Shape {
public:
    virtual double area() const = 0;
    std::string name() const;
};

double Shape::perimeter() const {
    return 0.0;
}

}  // namespace geo

int main() {
    return 0;
}
"""

A_GO = """\
package main

type Server struct {
	port int
}

type Handler interface {
	Serve(req string) error
}

func (s *Server) Start() error {
	return nil
}

func main() {
	s := &Server{port: 8080}
	s.Start()
}
"""

A_JS = """\
// utils
class Store {
  constructor(db) { this.db = db; }
  get(key) {
    return this.db[key];
  }
}
function helper(a, b) {
  return a + b;
}
const arrow = (x) => x * 2;
module.exports = { Store, helper };
"""

A_RS = """\
pub struct Point {
    x: f64,
}

pub trait Shape {
    fn area(&self) -> f64;
}

impl Shape for Point {
    fn area(&self) -> f64 {
        0.0
    }
}

enum Kind { A, B }

fn main() {
    let p = Point { x: 1.0 };
}
"""

A_TS = """\
interface Shape {
  area(): number;
}
type Id = string;
enum Color { Red, Green }
export abstract class Base implements Shape {
  abstract area(): number;
  describe(): string {
    return "shape";
  }
}
namespace Geo {
  export function dist(a: number): number { return a; }
}
"""

A_TSX = """\
import React from "react";
interface Props { name: string }
export function Hello({ name }: Props) {
  return <div>Hello {name}</div>;
}
const Button = (p: Props) => <button>{p.name}</button>;
"""


@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        (
            PYTHON,
            "a.py",
            [
                "L3-3  LIMIT = 10",
                "L6-14  class Store:",
                "  L9-10  def __init__(self, root):",
                "  L13-14  def size(self):",
                "L17-19  async def fetch(url,",
            ],
        ),
        (
            A_JS,
            "a.js",
            [
                "L2-7  class Store {",
                "  L3-3  constructor(db) { this.db = db; }",
                "  L4-6  get(key) {",
                "L8-10  function helper(a, b) {",
                "L11-11  const arrow = (x) => x * 2;",
            ],
        ),
        (
            A_TS,
            "a.ts",
            [
                "L1-3  interface Shape {",
                "  L2-2  area(): number;",
                "L4-4  type Id = string;",
                "L5-5  enum Color { Red, Green }",
                "L6-11  export abstract class Base implements Shape {",
                "  L7-7  abstract area(): number;",
                "  L8-10  describe(): string {",
                "L12-14  namespace Geo {",
                "  L13-13  export function dist(a: number): number { return a; }",
            ],
        ),
        (
            A_TSX,
            "a.tsx",
            [
                "L2-2  interface Props { name: string }",
                "L3-5  export function Hello({ name }: Props) {",
                "L6-6  const Button = (p: Props) => <button>{p.name}</button>;",
            ],
        ),
        (
            A_GO,
            "a.go",
            [
                "L3-5  type Server struct {",
                "L7-9  type Handler interface {",
                "  L8-8  Serve(req string) error",
                "L11-13  func (s *Server) Start() error {",
                "L15-18  func main() {",
            ],
        ),
        (
            A_RS,
            "a.rs",
            [
                "L1-3  pub struct Point {",
                "L5-7  pub trait Shape {",
                "  L6-6  fn area(&self) -> f64;",
                "L9-13  impl Shape for Point {",
                "  L10-12  fn area(&self) -> f64 {",
                "L15-15  enum Kind { A, B }",
                "L17-19  fn main() {",
            ],
        ),
        (
            A_JAVA,
            "A.java",
            [
                "L3-18  public class Greeter {",
                "  L6-8  public Greeter(String name) {",
                "  L10-13  public String toString() {",
                "  L15-17  interface Listener {",
                "    L16-16  void onGreet(String who);",
            ],
        ),
        (
            A_C,
            "a.c",
            [
                "L3-6  struct point {",
                "L8-8  typedef struct point point_t;",
                "L10-12  static int add(int a, int b) {",
                "L16-18  int main(void) {",
            ],
        ),
        (
            A_CPP,
            "a.cpp",
            [
                "L3-15  namespace geo {",
                "  L5-9  class Shape {",
                "    L7-7  virtual double area() const = 0;",
                "    L8-8  std::string name() const;",
                "  L11-13  double Shape::perimeter() const {",
                "L17-19  int main() {",
            ],
        ),
    ],
    ids=["python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp"],
)
def test_outline_lists_nested_signatures_with_line_ranges(
    text: str, path: str, expected: list[str]
) -> None:
    assert outline(text, path) == "\n".join(expected)


def test_outline_lines_are_real_source_lines() -> None:
    source_lines = {line.strip() for line in PYTHON.splitlines()}
    rendered = outline(PYTHON, "pkg/mod.py")
    assert rendered is not None
    for entry in rendered.splitlines():
        assert entry.strip().split("  ", 1)[1] in source_lines


def test_outline_of_unknown_language_is_none() -> None:
    assert outline("some text\n", "notes.txt") is None
    assert language_for_path("notes.txt") is None


def test_outline_of_file_without_definitions_is_empty() -> None:
    assert outline("import os\nprint(os.sep)\n", "script.py") == ""


def test_outline_keeps_crlf_and_unicode_out_of_signatures() -> None:
    text = "def caf\u00e9(x):\r\n    return x\r\n\r\nclass \u00c9t\u00e9:\r\n    pass\r\n"
    assert outline(text, "u.py") == "L1-2  def caf\u00e9(x):\nL4-5  class \u00c9t\u00e9:"


def test_language_by_extension() -> None:
    assert language_for_path("a/b.PY") == "python"
    assert language_for_path("x.tsx") == "tsx"
    assert language_for_path("x.ts") == "typescript"
    assert language_for_path("x.hpp") == "cpp"
    assert language_for_path("x.h") == "c"


def test_importing_the_package_loads_no_grammar() -> None:
    probe = (
        "import sys\n"
        "from cairn.code import outline, chunk_text, language_for_path\n"
        "assert language_for_path('a.py') == 'python'\n"
        "print(sorted(m for m in sys.modules if m.startswith('tree_sitter_')))\n"
        "outline('def f(): pass', 'a.py')\n"
        "print(sorted(m for m in sys.modules if m.startswith('tree_sitter_')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    before, after = done.stdout.splitlines()
    assert before == "[]"
    assert "'tree_sitter_python'" in after
    assert "'tree_sitter_go'" not in after
