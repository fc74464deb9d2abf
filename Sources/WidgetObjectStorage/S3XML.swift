import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads the XML documents S3 answers with: a `ListBucketResult` page and an `Error`.
enum S3XML {
    /// One page of a listing.
    struct Listing {
        var objects: [ListedObject]
        var isTruncated: Bool
        var nextToken: String?
    }

    /// What an `<Error>` says.
    struct ErrorDetails: Equatable {
        var code: String?
        var message: String?
    }

    /// The page in `data`, or `nil` when it is no `ListBucketResult`.
    static func listing(_ data: Data) -> Listing? {
        let reader = Reader()
        guard reader.read(data), reader.root == "ListBucketResult" else { return nil }
        return Listing(
            objects: reader.objects, isTruncated: reader.top["IsTruncated"] == "true", nextToken: reader.top["NextContinuationToken"])
    }

    /// The code and message of the `<Error>` in `data`, or `nil` when it holds none (a `HEAD` answer, a
    /// proxy's HTML page).
    static func error(_ data: Data) -> ErrorDetails? {
        guard !data.isEmpty else { return nil }
        let reader = Reader()
        guard reader.read(data), reader.root == "Error" else { return nil }
        return ErrorDetails(code: reader.top["Code"], message: reader.top["Message"])
    }

    /// Collects the root's name, the text of its child elements, and each `<Contents>` entry.
    private final class Reader: NSObject, XMLParserDelegate {
        var root: String?
        var top: [String: String] = [:]
        var objects: [ListedObject] = []
        private var path: [String] = []
        private var text = ""
        private var entry: [String: String] = [:]

        func read(_ data: Data) -> Bool {
            let parser = XMLParser(data: data)
            parser.shouldResolveExternalEntities = false
            parser.delegate = self
            return parser.parse()
        }

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if root == nil { root = elementName }
            path.append(elementName)
            text = ""
            if path.count == 2 && elementName == "Contents" { entry = [:] }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text += string
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            if path.count == 2 {
                if elementName == "Contents" {
                    if let key = entry["Key"] {
                        objects.append(
                            ListedObject(key: key, etag: S3Client.unquote(entry["ETag"] ?? ""), size: Int(entry["Size"] ?? "") ?? 0))
                    }
                } else {
                    top[elementName] = text
                }
            } else if path.count == 3 && path[1] == "Contents" {
                entry[elementName] = text
            }
            path.removeLast()
            text = ""
        }
    }
}
