# Example tool policy for the gateway, in Rego.
#
# Deny by default; allow and deny rules per client with glob wildcards; a deny rule beats an allow rule;
# every decision has a reason code ("allowed", "denied_default" or "denied_explicit").
#
# Decisions: data.gateway.policy.allow (boolean) and data.gateway.policy.reason (reason code).
# Input: the CodeMode authorization input, where subject.id is the gateway client and capability.id the
# namespaced tool name "<downstream>__<tool>".
package gateway.policy

# Per-client rules. "*" matches any run of characters (tool names contain no ".").
clients := {
	"claude-desktop": {
		"allow": ["github__*", "filesystem__read_*", "filesystem__list_*"],
		"deny": ["github__delete_*"],
	},
	"ci-bot": {
		"allow": ["*"],
		"deny": ["filesystem__write_*", "*__admin_*"],
	},
	"auditor": {
		"allow": ["*__get_*", "*__list_*"],
		"deny": [],
	},
}

tool := input.capability.id

rules := object.get(clients, input.subject.id, {"allow": [], "deny": []})

allow_matched if {
	some pattern in rules.allow
	glob.match(pattern, [], tool)
}

deny_matched if {
	some pattern in rules.deny
	glob.match(pattern, [], tool)
}

default allow := false

allow if {
	allow_matched
	not deny_matched
}

default reason := "denied_default"

reason := "denied_explicit" if deny_matched

reason := "allowed" if allow
