// Node 20 (Debian 13's, Ubuntu's) has no Set.prototype.union and its kin,
// which Node 22 has and gitlab-ci-local's bundle calls at load time: the
// ES2025 methods, defined only where missing, on what a Set-like offers
// (has, keys, size) as the standard defines them.
const methods = {
	union(other) {
		const out = new Set(this);
		for (const v of other.keys())
			out.add(v);
		return out;
	},
	intersection(other) {
		return new Set([...this].filter((v) => other.has(v)));
	},
	difference(other) {
		return new Set([...this].filter((v) => !other.has(v)));
	},
	symmetricDifference(other) {
		const out = new Set(this);
		for (const v of other.keys()) {
			if (this.has(v))
				out.delete(v);
			else
				out.add(v);
		}
		return out;
	},
	isSubsetOf(other) {
		return [...this].every((v) => other.has(v));
	},
	isSupersetOf(other) {
		for (const v of other.keys()) {
			if (!this.has(v))
				return false;
		}
		return true;
	},
	isDisjointFrom(other) {
		return [...this].every((v) => !other.has(v));
	},
};

for (const [name, fn] of Object.entries(methods)) {
	if (typeof Set.prototype[name] !== "function")
		Object.defineProperty(Set.prototype, name, { value: fn, writable: true, configurable: true });
}
