#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Users and groups from the system's database (getpwnam, getgrnam, getgrouplist): names to ids for the access
/// settings, and a connecting user's groups for the access checks.
public enum UserDatabase {
    /// The uid of the user `name`; nil when there is none.
    public static func uid(ofUser name: String) -> UInt32? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.pw_uid
    }

    /// The gid of the group `name`; nil when there is none.
    public static func gid(ofGroup name: String) -> UInt32? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 65536)
        guard getgrnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.gr_gid
    }

    /// The name of the user `uid` and every group it belongs to (its primary group `gid` first, then the
    /// supplementary ones the database lists); a uid the database does not know has only `gid`.
    public static func account(uid: UInt32, gid: UInt32) -> (name: String?, groups: [UInt32]) {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let namePointer = entry.pw_name else {
            return (nil, [gid])
        }
        let name = String(cString: namePointer)
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(namePointer, gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(namePointer, gid, &groups, &count)
        }
        var all = [gid]
        for group in groups.prefix(Int(max(0, count))) where !all.contains(group) {
            all.append(group)
        }
        return (name, all)
    }
}
