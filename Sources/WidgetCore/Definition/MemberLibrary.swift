import Synchronization
import WidgetJSON

/// Members of definitions read once for a whole load of a folder, shared by the reads of all its files:
/// files written from one pattern repeat most of their members (`schedule`, `timeline`, `transforms`,
/// `fallback`), and each is then decoded once for the folder instead of once per file. Safe to use from
/// several threads.
///
/// A member is looked up by the type read, its place in the document and its value: read from an equal
/// value at the same place, with the same decoder's templates and filters (those of the load), it is the
/// same. Only a member read without a problem and without an unknown key is kept, so that every file
/// that has one reports it; a member taken from the library opens no object and asks for no key, so none
/// of its keys is reported unknown, as none would have been.
///
/// The decoder finds it in its `userInfo` under ``userInfoKey`` (see `DefinitionReader.sharingTemplates()`).
package final class MemberLibrary: Sendable {
    private struct Member: Hashable, Sendable {
        let type: ObjectIdentifier
        let path: ValuePath
        let value: WidgetValue
    }

    private let members = Mutex<[HashedKey<Member>: any Sendable]>([:])

    /// The `userInfo` key under which decoders find the library.
    static let userInfoKey = CodingUserInfoKey(rawValue: "widgetd.definition.members")!

    /// An empty library.
    package init() {}

    /// The member of type `T` read from `value` at `path`: from the library when an equal one was read
    /// cleanly before, else by `read`, which also says whether what it read was clean (kept, then).
    func member<T: Sendable>(
        _ type: T.Type, at path: ValuePath, _ value: WidgetValue, read: () throws -> (member: T?, clean: Bool)
    ) rethrows -> T? {
        let key = HashedKey(Member(type: ObjectIdentifier(T.self), path: path, value: value))
        if let known = members.withLock({ $0[key] }) as? T { return known }
        let (member, clean) = try read()
        if clean, let member { members.withLock { $0[key] = member } }
        return member
    }
}
