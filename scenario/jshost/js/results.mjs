// What the Node host and the bridge to a test process share: how an error
// is described on the wire, which errors are assertions, and the
// invariant's view of the actors' results.

import { AssertionError } from 'node:assert';

function safeString(value) {
  try {
    return String(value);
  } catch {
    return '(a value that cannot be shown)';
  }
}

/** describeError turns anything thrown into { name, message, code, where }. */
export function describeError(err) {
  if (err !== null && typeof err === 'object') {
    const name = typeof err.name === 'string' ? err.name : 'Error';
    let message = typeof err.message === 'string' ? err.message : '';
    if (message === '') message = safeString(err);
    const out = { name, message };
    if (typeof err.code === 'string') out.code = err.code;
    if (typeof err.where === 'string' && err.where !== '') out.where = err.where;
    return out;
  }
  return { name: typeof err, message: safeString(err) };
}

/** isAssertion: a node:assert AssertionError (a violation, not a harness error). */
export function isAssertion(err) {
  return err instanceof AssertionError || (err !== null && typeof err === 'object' && err.code === 'ERR_ASSERTION');
}

/**
 * invariantResults is the invariant's view of the actors: an array of
 * { actor, status, value } / { actor, status, reason, error } in actor
 * order, which also answers results[actorId] (except for ids that name an
 * array property, such as length or map). entries are the wire form:
 * { actor, status, value } or { actor, status, error: { name, message, code } }.
 */
export function invariantResults(entries) {
  const list = entries.map((e) => {
    if (e.status === 'fulfilled') {
      return 'value' in e ? { actor: e.actor, status: 'fulfilled', value: e.value } : { actor: e.actor, status: 'fulfilled' };
    }
    const reason = new Error(e.error.message);
    reason.name = e.error.name;
    if (e.error.code) reason.code = e.error.code;
    return { actor: e.actor, status: 'rejected', reason, error: e.error.message };
  });
  for (const r of list) {
    if (!(r.actor in list)) Object.defineProperty(list, r.actor, { value: r, enumerable: false });
  }
  return list;
}

/** resultEntries is invariantResults' input again, from its output. */
export function resultEntries(results) {
  return Array.from(results, (r) => {
    if (r.status === 'fulfilled') return 'value' in r ? { actor: r.actor, status: r.status, value: r.value } : { actor: r.actor, status: r.status };
    return { actor: r.actor, status: r.status, error: describeError(r.reason ?? new Error(r.error)) };
  });
}
