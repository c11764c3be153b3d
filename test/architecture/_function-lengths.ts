// The length in lines of every function in a source tree (declarations, expressions, arrows and methods), read
// with the TypeScript compiler's parser so that a closure inside a factory is measured on its own as well as
// inside its parent.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { sourceFiles } from "./_import-graph.ts";

export type FunctionLength = { file: string; name: string; line: number; lines: number };

export function functionLengths(root: string): FunctionLength[] {
  const found: FunctionLength[] = [];
  for (const file of sourceFiles(root)) {
    const text = readFileSync(join(root, file), "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        found.push({ file, name: nameOf(node), line: start + 1, lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return "(anonymous)";
}
