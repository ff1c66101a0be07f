/// JSON Merge Patch (RFC 7396): a patch that looks like the document it changes. Each member of an object patch
/// replaces the member of that name, `null` removes it, and an object merges into an object recursively; any
/// other patch replaces the whole value.
///
/// Members the patch replaces stay where they are in the document, new members go last, so an item keeps the
/// order a person gave its members.
public enum JSONMergePatch {
    /// `target` with `patch` applied, as RFC 7396's MergePatch(Target, Patch) defines it. Never fails: every JSON
    /// value is a merge patch.
    public static func apply(_ patch: JSONValue, to target: JSONValue) -> JSONValue {
        guard case .object(let members) = patch else { return patch }
        var object: JSONObject
        if case .object(let existing) = target { object = existing } else { object = JSONObject() }
        for member in members.effectiveMembers {
            if case .null = member.value {
                object[member.key] = nil
            } else {
                object[member.key] = apply(member.value, to: object.member(named: member.key) ?? .null)
            }
        }
        return .object(object)
    }
}
