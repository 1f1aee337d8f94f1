# Role-based access control for CodeMode native calls.
#
# Decision: data.codemode.authz.allow (a total boolean: unmatched input is an intentional denial).
# Input (one native call):
#   {"subject": {"id": "..."}, "capability": {"id": "...", "name": "..."}, "arguments": {...}}
# Subjects map to roles, roles grant stable capability IDs, and per-capability constraints check the
# canonical arguments (absent optional arguments are absent from input.arguments).
package codemode.authz

# Subjects and their roles.
roles := {
	"alice": {"admin"},
	"bob": {"reader"},
	"carol": {"reader", "writer"},
	"dave": {"billing"},
	"erin": {"billing", "reader"},
	"svc-report": {"reporter"},
	"mallory": {"reader"},
}

# Capability IDs each role may call.
grants := {
	"admin": {
		"records.entry.lookup", "records.entry.update", "records.entry.delete",
		"billing.invoice.list", "billing.invoice.refund", "reports.summary.build",
	},
	"reader": {"records.entry.lookup", "reports.summary.build"},
	"writer": {"records.entry.update"},
	"billing": {"billing.invoice.list", "billing.invoice.refund"},
	"reporter": {"reports.summary.build"},
}

# Subjects whose access is suspended regardless of their roles.
suspended := {"mallory"}

default allow := false

allow if {
	granted
	count(violations) == 0
}

subject_roles contains role if some role in roles[input.subject.id]

is_admin if "admin" in subject_roles

granted if {
	some role in subject_roles
	input.capability.id in grants[role]
}

args := object.get(input, "arguments", {})

violations contains "subject suspended" if input.subject.id in suspended

# records.entry.lookup: an optional page size between 1 and 100; internal keys are for admins only.
violations contains "limit out of range" if {
	input.capability.id == "records.entry.lookup"
	limit := args.limit
	not valid_limit(limit)
}

violations contains "internal key" if {
	input.capability.id in {"records.entry.lookup", "records.entry.update"}
	startswith(args.key, "internal/")
	not is_admin
}

valid_limit(n) if {
	is_number(n)
	n >= 1
	n <= 100
}

# records.entry.update: values up to 1024 characters, never on locked keys.
violations contains "value too long" if {
	input.capability.id == "records.entry.update"
	count(args.value) > 1024
}

violations contains "locked key" if {
	input.capability.id == "records.entry.update"
	endswith(args.key, ".lock")
}

# records.entry.delete: needs an explicit confirmation.
violations contains "delete not confirmed" if {
	input.capability.id == "records.entry.delete"
	not args.confirm == true
}

# billing.invoice.refund: positive amounts; above 500 only for admins.
violations contains "refund amount not positive" if {
	input.capability.id == "billing.invoice.refund"
	not args.amount > 0
}

violations contains "refund above limit" if {
	input.capability.id == "billing.invoice.refund"
	args.amount > 500
	not is_admin
}

# billing.invoice.list: a plausible year.
violations contains "year out of range" if {
	input.capability.id == "billing.invoice.list"
	year := object.get(args, "year", 2024)
	not year_ok(year)
}

year_ok(y) if {
	is_number(y)
	y >= 2000
	y <= 2100
}

# reports.summary.build: known formats only.
violations contains "unknown format" if {
	input.capability.id == "reports.summary.build"
	not object.get(args, "format", "json") in {"json", "csv"}
}
