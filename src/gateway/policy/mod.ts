/**
 * Deny-by-default access policy with exact and `downstream__*` rules, deny beating allow, and the
 * per-client catalog filter built on the same decisions.
 *
 * @module
 */
export { type ClientRules, parseRule, Policy, type Rule, ruleDownstream } from "./policy.ts";
