// defineScenario, checked as the original JavaScript tool checks it, and
// where each scenario was defined (the module that called defineScenario),
// which explore() names in the record of an in-memory scenario.

const actorId = /^[a-zA-Z][a-zA-Z0-9_-]{0,47}$/;
const reservedIds = new Set(['__proto__', 'prototype', 'constructor']);
const origins = new WeakMap();

function isPlainObject(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// field returns an own, enumerable data property, or throws naming it.
function field(object, key, label) {
  const d = Object.getOwnPropertyDescriptor(object, key);
  if (!d || !d.enumerable || !('value' in d)) {
    throw new TypeError(`${label} must be an own enumerable value`);
  }
  return d.value;
}

/** Check a scenario ({ name, setup, actors, invariant }) and return it unchanged. */
export function defineScenario(scenario) {
  checkScenario(scenario);
  if (!origins.has(scenario)) origins.set(scenario, callerURL(new Error().stack));
  return scenario;
}

/** The file: URL of the module that defined scenario, or '' when unknown. */
export function scenarioOrigin(scenario) {
  return origins.get(scenario) ?? '';
}

// callerURL is the first file: URL in a stack trace that is not this
// package's own module.
function callerURL(stack) {
  const here = new URL('.', import.meta.url).href;
  for (const m of String(stack ?? '').matchAll(/(file:\/\/[^\s)]+?):\d+:\d+/g)) {
    if (!m[1].startsWith(here)) return m[1];
  }
  return '';
}

/** Throw a TypeError saying what is wrong with scenario, as defineScenario does. */
export function checkScenario(scenario) {
  if (!isPlainObject(scenario)) {
    throw new TypeError('Scenario must be a plain object: defineScenario({ name, setup, actors, invariant })');
  }
  const name = field(scenario, 'name', 'Scenario name');
  if (typeof name !== 'string' || name.trim() === '' || name.length > 256) {
    throw new TypeError('Scenario name must contain 1 to 256 characters and cannot be blank');
  }
  for (const key of ['setup', 'invariant']) {
    if (typeof field(scenario, key, `Scenario ${key}`) !== 'function') {
      throw new TypeError(`Scenario ${key} must be a function`);
    }
  }
  const actors = field(scenario, 'actors', 'Scenario actors');
  if (!isPlainObject(actors)) {
    throw new TypeError('Scenario actors must be a plain object mapping actor ids to async functions');
  }
  if (Object.getOwnPropertySymbols(actors).length > 0) {
    throw new TypeError('Scenario actors must use string actor ids');
  }
  const ids = Object.getOwnPropertyNames(actors);
  if (ids.length < 2 || ids.length > 8) {
    throw new TypeError(`Scenario actors must contain between 2 and 8 actors (found ${ids.length})`);
  }
  for (const id of ids) {
    if (!actorId.test(id) || reservedIds.has(id)) {
      throw new TypeError(`Scenario actor id ${JSON.stringify(id)} is invalid: ids start with a letter and use letters, digits, '_' and '-' (at most 48)`);
    }
    if (typeof field(actors, id, `Scenario actor ${id}`) !== 'function') {
      throw new TypeError(`Scenario actor ${id} must be a function`);
    }
  }
}
