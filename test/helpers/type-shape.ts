// The shape of a TypeScript type as a flat list, read with the compiler API of the installed
// `typescript` package: one entry per property path, in declaration order, saying whether the
// member may be absent and which JSON types it takes. Two types that serialize the same JSON have
// the same shape, whatever their names, aliases, interfaces or intersections.
//
// Paths: `teams[0].players[].name` (tuple element, array element), `tools.[string]` (an index
// signature: the open objects' other members). Kinds: string, number, boolean, null, unknown,
// object, array, tuple(N), and literals as JSON (`"kills"`, `0`); `true | false` is boolean.
// A member typed `T | undefined` counts as optional, like `m?: T`: both are left out of the JSON.
import ts from 'typescript';

export type Shape = Map<string, string>;

/** The shape of the exported type or interface `typeName` of each file, in one compiler program. */
export function typeShapes(requests: Array<{ file: string; typeName: string }>): Shape[] {
  const program = ts.createProgram(requests.map((r) => r.file), { strict: true, noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  return requests.map(({ file, typeName }) => {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} is not in the program`);
    const moduleSymbol = checker.getSymbolAtLocation(source);
    const exported = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === typeName);
    if (!exported) throw new Error(`${file} exports no ${typeName}`);
    const shape: Shape = new Map();
    walk(checker, checker.getDeclaredTypeOfSymbol(exported), '', false, shape);
    return shape;
  });
}

function walk(checker: ts.TypeChecker, type: ts.Type, path: string, optional: boolean, out: Shape): void {
  const members = type.isUnion() ? type.types : [type];
  const kinds = new Set<string>();
  const children: Array<() => void> = [];
  for (const t of members) {
    const f = t.flags;
    if (f & ts.TypeFlags.Undefined) optional = true;
    else if (f & ts.TypeFlags.Null) kinds.add('null');
    else if (f & ts.TypeFlags.Unknown || f & ts.TypeFlags.Any) kinds.add('unknown');
    else if (f & ts.TypeFlags.BooleanLiteral || f & ts.TypeFlags.Boolean) kinds.add('boolean');
    else if (t.isStringLiteral() || t.isNumberLiteral()) kinds.add(JSON.stringify(t.value));
    else if (f & ts.TypeFlags.String) kinds.add('string');
    else if (f & ts.TypeFlags.Number) kinds.add('number');
    else if (checker.isTupleType(t)) {
      const elements = checker.getTypeArguments(t as ts.TypeReference);
      kinds.add(`tuple(${elements.length})`);
      elements.forEach((e, i) => children.push(() => walk(checker, e, `${path}[${i}]`, false, out)));
    } else if (checker.isArrayType(t)) {
      kinds.add('array');
      children.push(() => walk(checker, checker.getTypeArguments(t as ts.TypeReference)[0], `${path}[]`, false, out));
    } else if (f & ts.TypeFlags.Object || t.isIntersection()) {
      kinds.add('object');
      children.push(() => walkObject(checker, t, path, out));
    } else {
      throw new Error(`${path || '(root)'}: no JSON shape for ${checker.typeToString(t)}`);
    }
  }
  if (path !== '') out.set(path, `${optional ? '?' : ''}${[...kinds].sort().join(' | ')}`);
  for (const child of children) child();
}

function walkObject(checker: ts.TypeChecker, type: ts.Type, path: string, out: Shape): void {
  const prefix = path === '' ? '' : `${path}.`;
  for (const prop of checker.getPropertiesOfType(type)) {
    const optional = (prop.flags & ts.SymbolFlags.Optional) !== 0;
    walk(checker, checker.getTypeOfSymbol(prop), `${prefix}${prop.name}`, optional, out);
  }
  for (const info of checker.getIndexInfosOfType(type)) {
    if (info.keyType.flags & ts.TypeFlags.String) walk(checker, info.type, `${prefix}[string]`, false, out);
  }
}
