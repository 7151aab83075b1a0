// Module customization hooks of Interleave's Node host (registered with
// module.register by host.mjs; Node runs them on its own loader thread).
//
// resolve maps the package names a scenario imports defineScenario from to
// the shim this binary ships, so that the user installs nothing, and
// reports every file: URL it resolves so that the host can tell which
// local files the scenario's module graph holds (the fingerprint).

let shimURL = '';
let ownDir = '';
let shimNames = new Set();
let port = null;

export function initialize(data) {
  shimURL = data.shim;
  ownDir = new URL('.', data.shim).href; // the host's own modules: not the scenario's
  shimNames = new Set(data.names);
  port = data.port;
  // The host asks for a flush once the scenario is loaded: the reply comes
  // after every URL posted before it, on the same port.
  port.on('message', (message) => {
    if (message && message.flush) port.postMessage({ flushed: message.flush });
  });
}

export async function resolve(specifier, context, nextResolve) {
  if (shimNames.has(specifier)) {
    return { url: shimURL, shortCircuit: true };
  }
  const resolved = await nextResolve(specifier, context);
  if (port && typeof resolved.url === 'string' && resolved.url.startsWith('file:') && !resolved.url.startsWith(ownDir)) {
    port.postMessage({ url: resolved.url });
  }
  return resolved;
}
