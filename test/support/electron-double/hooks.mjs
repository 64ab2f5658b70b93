// Module resolution hook (module.register, Node 20.6+): `import 'electron'` gets the double. The
// double's URL goes on through the next hooks (tsx), which load the TypeScript file.
let target;

export function initialize(data) {
  target = data.doubleUrl;
}

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'electron') return nextResolve(target, context);
  return nextResolve(specifier, context);
}
