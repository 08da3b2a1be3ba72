//! OneLake's Blob API on local Fabric (`{origin}/onelake/{workspace}/{item}/Files/...`),
//! checked against Azure Blob Storage's documented shapes: Put Blob (201, `ETag`,
//! `Last-Modified`), Get Blob (200, 206 with `Content-Range`, 416 `InvalidRange`), Get Blob
//! Properties, List Blobs (`EnumerationResults` with `Blob/Properties` and `BlobPrefix`),
//! Put Block / Put Block List, Delete Blob (202), conditional headers, and errors as
//! `<Error><Code>` with `x-ms-error-code`. Tokens are for Azure Storage
//! (`https://storage.azure.com`), and OneLake's data wants Contributor or above.

use crate::support::{Server, principal_with_token};
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;

/// What a path segment escapes (RFC 3986 path characters stay).
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'/')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}');

/// An answer: status, head (lower-cased header lines), body bytes.
struct Answer {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<String> {
        let wanted = format!("{}:", name.to_ascii_lowercase());
        self.head.lines().find_map(|line| {
            line.to_ascii_lowercase()
                .starts_with(&wanted)
                .then(|| line[wanted.len()..].trim().to_string())
        })
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The Azure error code, from the header and the body (which must agree).
    fn error_code(&self) -> String {
        let code = self.header("x-ms-error-code").expect("x-ms-error-code");
        assert!(
            self.text()
                .contains(&format!("<Error><Code>{code}</Code><Message>")),
            "{}",
            self.text()
        );
        code
    }
}

/// A raw HTTP/1.1 request with a binary body: sent with its Content-Length, or as one chunk
/// when `headers` hold `Transfer-Encoding: chunked`.
fn send(origin: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
    let host = origin.trim_start_matches("http://");
    let mut stream = TcpStream::connect(host).expect("connect");
    let chunked = headers.contains(&("Transfer-Encoding", "chunked"));
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    if !chunked {
        request.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    let mut bytes = request.into_bytes();
    if chunked {
        bytes.extend_from_slice(format!("{:x}\r\n", body.len()).as_bytes());
        bytes.extend_from_slice(body);
        bytes.extend_from_slice(b"\r\n0\r\n\r\n");
    } else {
        bytes.extend_from_slice(body);
    }
    stream.write_all(&bytes).expect("write");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).expect("read");
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8_lossy(&response[..split]).into_owned();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    let rest = response[split + 4..].to_vec();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(&rest)
    } else {
        rest
    };
    Answer { status, head, body }
}

fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("size line");
        let size = usize::from_str_radix(
            std::str::from_utf8(&rest[..line_end]).expect("hex").trim(),
            16,
        )
        .expect("chunk size");
        if size == 0 {
            return out;
        }
        let start = line_end + 2;
        out.extend_from_slice(&rest[start..start + size]);
        rest = &rest[start + size + 2..];
    }
}

/// A session's OneLake: its copy of Demo and its storage token.
struct Lake {
    server: Server,
    token: String,
}

impl Lake {
    fn new() -> Lake {
        let server = Server::session(module_path!());
        let token = server.storage_token.clone();
        Lake { server, token }
    }

    /// `/onelake/{workspace}/{name}` with each segment of `name` escaped.
    fn path(&self, name: &str) -> String {
        let escaped: Vec<String> = name
            .split('/')
            .map(|s| utf8_percent_encode(s, SEGMENT).to_string())
            .collect();
        format!(
            "/onelake/{}/{}",
            utf8_percent_encode(&self.server.demo, SEGMENT),
            escaped.join("/")
        )
    }

    fn call(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
        self.call_as(&self.token, method, path, headers, body)
    }

    fn call_as(
        &self,
        token: &str,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Answer {
        let auth = format!("Bearer {token}");
        let mut all = vec![
            ("Authorization", auth.as_str()),
            ("x-ms-version", "2023-11-03"),
        ];
        all.extend_from_slice(headers);
        send(&self.server.origin(), method, path, &all, body)
    }

    fn put(&self, name: &str, body: &[u8], headers: &[(&str, &str)]) -> Answer {
        let mut all = vec![("x-ms-blob-type", "BlockBlob")];
        all.extend_from_slice(headers);
        self.call("PUT", &self.path(name), &all, body)
    }

    fn get(&self, name: &str, headers: &[(&str, &str)]) -> Answer {
        self.call("GET", &self.path(name), headers, b"")
    }

    /// Put Block of `body` as block `id` of the blob at `path` (a [`Lake::path`]).
    fn put_block(&self, path: &str, id: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
        let query = format!("{path}?comp=block&blockid={}", q(id));
        self.call("PUT", &query, headers, body)
    }

    /// Put Block List of `list` (XML) for the blob at `path`.
    fn commit(&self, path: &str, headers: &[(&str, &str)], list: &str) -> Answer {
        let query = format!("{path}?comp=blocklist");
        self.call("PUT", &query, headers, list.as_bytes())
    }

    /// List Blobs with the given extra query (`&prefix=...`).
    fn list(&self, query: &str) -> Answer {
        let path = format!(
            "/onelake/{}?restype=container&comp=list{query}",
            utf8_percent_encode(&self.server.demo, SEGMENT)
        );
        self.call("GET", &path, &[], b"")
    }
}

/// Bytes of every value, so no encoding could pass them through unchanged by luck.
fn binary(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 % 256) as u8).collect()
}

/// A query value escaped.
fn q(value: &str) -> String {
    utf8_percent_encode(value, percent_encoding::NON_ALPHANUMERIC).to_string()
}

#[test]
fn a_binary_file_with_a_utf8_name_goes_in_lists_comes_back_and_is_deleted() {
    let lake = Lake::new();
    let name = "SalesLakehouse.Lakehouse/Files/räw data/日本 orders.bin";
    let content = binary(200_003);
    let put = lake.put(name, &content, &[]);
    assert_eq!(put.status, 201, "{}", put.text());
    let etag = put.header("etag").expect("ETag");
    assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
    let modified = put.header("last-modified").expect("Last-Modified");
    assert!(
        modified.ends_with(" GMT") && modified.contains(", "),
        "{modified}"
    );
    assert!(put.header("x-ms-request-id").is_some());
    assert!(put.header("x-ms-version").is_some());

    let got = lake.get(name, &[]);
    assert_eq!(got.status, 200);
    assert_eq!(got.body, content, "the bytes come back unchanged");
    assert_eq!(got.header("etag"), Some(etag.clone()));
    assert_eq!(
        got.header("content-length"),
        Some(content.len().to_string())
    );
    let head = lake.call("HEAD", &lake.path(name), &[], b"");
    assert_eq!(head.status, 200);
    assert_eq!(
        head.header("content-length"),
        Some(content.len().to_string())
    );
    assert_eq!(head.header("x-ms-blob-type").as_deref(), Some("BlockBlob"));
    assert!(head.body.is_empty());

    // Without a delimiter: the blob, named from the container, with its properties.
    let listed = lake.list(&format!("&prefix={}", q("SalesLakehouse.Lakehouse/Files/")));
    assert_eq!(listed.status, 200, "{}", listed.text());
    let xml = listed.text();
    assert!(xml.starts_with("<?xml"), "{xml}");
    assert!(xml.contains(&format!("<Name>{name}</Name>")), "{xml}");
    assert!(
        xml.contains(&format!(
            "<Content-Length>{}</Content-Length>",
            content.len()
        )),
        "{xml}"
    );
    assert!(
        xml.contains(&format!("<Last-Modified>{modified}</Last-Modified>")),
        "{xml}"
    );
    assert!(xml.contains("<Etag>"), "{xml}");
    assert!(xml.contains("<NextMarker />"), "{xml}");
    // With one: the folder as a prefix.
    let grouped = lake.list(&format!(
        "&prefix={}&delimiter=%2F",
        q("SalesLakehouse.Lakehouse/Files/")
    ));
    let xml = grouped.text();
    assert!(
        xml.contains(
            "<BlobPrefix><Name>SalesLakehouse.Lakehouse/Files/räw data/</Name></BlobPrefix>"
        ),
        "{xml}"
    );
    assert!(!xml.contains("<Blob>"), "{xml}");

    let deleted = lake.call("DELETE", &lake.path(name), &[], b"");
    assert_eq!(deleted.status, 202, "{}", deleted.text());
    let gone = lake.get(name, &[]);
    assert_eq!(gone.status, 404);
    assert_eq!(gone.error_code(), "BlobNotFound");
}

#[test]
fn listings_page_with_next_marker_and_the_workspace_lists_its_items() {
    let lake = Lake::new();
    for n in 0..3 {
        let put = lake.put(
            &format!("SalesLakehouse.Lakehouse/Files/paged/{n}.txt"),
            b"x",
            &[],
        );
        assert_eq!(put.status, 201);
    }
    let prefix = q("SalesLakehouse.Lakehouse/Files/paged/");
    let mut names = Vec::new();
    let mut marker = String::new();
    for _ in 0..4 {
        let page = lake.list(&format!(
            "&prefix={prefix}&maxresults=2&marker={}",
            q(&marker)
        ));
        assert_eq!(page.status, 200, "{}", page.text());
        let xml = page.text();
        assert!(xml.contains("<MaxResults>2</MaxResults>"), "{xml}");
        names.extend(
            xml.split("<Name>")
                .skip(1)
                .map(|rest| rest.split("</Name>").next().expect("name").to_string()),
        );
        match xml.split("<NextMarker>").nth(1) {
            Some(rest) => {
                marker = rest
                    .split("</NextMarker>")
                    .next()
                    .expect("marker")
                    .to_string();
            }
            None => break,
        }
    }
    let expected: Vec<String> = (0..3)
        .map(|n| format!("SalesLakehouse.Lakehouse/Files/paged/{n}.txt"))
        .collect();
    assert_eq!(names, expected);

    let workspace = format!("/onelake/{}?restype=container", lake.server.demo);
    assert_eq!(lake.call("HEAD", &workspace, &[], b"").status, 200);
    let root = lake.list("&delimiter=%2F");
    let xml = root.text();
    assert!(
        xml.contains("<BlobPrefix><Name>SalesLakehouse.Lakehouse/</Name></BlobPrefix>"),
        "{xml}"
    );
}

#[test]
fn ranged_reads_answer_206_with_content_range_and_past_the_end_416() {
    let lake = Lake::new();
    let name = "SalesLakehouse.Lakehouse/Files/ranged.bin";
    let content = binary(1000);
    assert_eq!(lake.put(name, &content, &[]).status, 201);

    let part = lake.get(name, &[("Range", "bytes=100-199")]);
    assert_eq!(part.status, 206);
    assert_eq!(part.body, content[100..200]);
    assert_eq!(
        part.header("content-range").as_deref(),
        Some("bytes 100-199/1000")
    );
    let tail = lake.get(name, &[("x-ms-range", "bytes=990-")]);
    assert_eq!(tail.status, 206);
    assert_eq!(tail.body, content[990..]);
    let clamped = lake.get(name, &[("Range", "bytes=995-5000")]);
    assert_eq!(clamped.body, content[995..]);
    assert_eq!(
        clamped.header("content-range").as_deref(),
        Some("bytes 995-999/1000")
    );

    let past = lake.get(name, &[("Range", "bytes=1000-1010")]);
    assert_eq!(past.status, 416);
    assert_eq!(past.error_code(), "InvalidRange");
}

#[test]
fn a_block_upload_is_invisible_until_its_block_list_is_committed() {
    let lake = Lake::new();
    let name = "SalesLakehouse.Lakehouse/Files/blocks/joined.bin";
    let path = lake.path(name);
    let (first, second) = (binary(70_000), vec![9u8; 5]);
    // Block ids as object_store makes them: base64 of equal-length ids.
    for (id, body) in [("MDAwMDAx", &first), ("MDAwMDAy", &second)] {
        let staged = lake.put_block(&path, id, &[], body);
        assert_eq!(staged.status, 201, "{}", staged.text());
    }
    assert_eq!(lake.get(name, &[]).status, 404, "staged blocks are no blob");
    // Get Block List answers in Azure's documented elements: BlockList > UncommittedBlocks >
    // Block > Name, Size.
    let blocks = |kind: &str| {
        lake.call(
            "GET",
            &format!("{path}?comp=blocklist&blocklisttype={kind}"),
            &[],
            b"",
        )
    };
    let staged = blocks("uncommitted");
    assert_eq!(staged.status, 200, "{}", staged.text());
    let text = staged.text();
    assert!(text.contains("<BlockList><UncommittedBlocks>"), "{text}");
    assert!(
        text.contains("<Block><Name>MDAwMDAx</Name><Size>70000</Size></Block>"),
        "{text}"
    );
    assert!(
        text.contains("<Block><Name>MDAwMDAy</Name><Size>5</Size></Block>"),
        "{text}"
    );
    assert!(!text.contains("CommittedBlocks><Block"), "{text}");
    let nothing = lake.call(
        "GET",
        &format!(
            "{}?comp=blocklist&blocklisttype=all",
            lake.path("SalesLakehouse.Lakehouse/Files/blocks/none.bin")
        ),
        &[],
        b"",
    );
    assert_eq!(
        nothing.status,
        404,
        "no blob and no blocks: {}",
        nothing.text()
    );
    assert_eq!(blocks("some").status, 400);
    let listed = lake.list(&format!(
        "&prefix={}",
        q("SalesLakehouse.Lakehouse/Files/blocks/")
    ));
    assert!(!listed.text().contains("joined.bin"), "{}", listed.text());

    // A list naming a block never staged is refused, and still nothing is there.
    let bad = "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList><Latest>MDAwMDk5</Latest></BlockList>";
    let refused = lake.commit(&path, &[], bad);
    assert_eq!(refused.status, 400);
    assert_eq!(refused.error_code(), "InvalidBlockList");
    assert_eq!(lake.get(name, &[]).status, 404);

    let list = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<BlockList>\n\t<Uncommitted>MDAwMDAx</Uncommitted>\n\t<Latest>MDAwMDAy</Latest>\n</BlockList>";
    let committed = lake.commit(&path, &[], list);
    assert_eq!(committed.status, 201, "{}", committed.text());
    assert!(committed.header("etag").is_some());
    let got = lake.get(name, &[]);
    assert_eq!(got.status, 200);
    let mut expected = first.clone();
    expected.extend_from_slice(&second);
    assert_eq!(got.body, expected);
    let all = blocks("all").text();
    assert!(
        all.contains("<CommittedBlocks><Block><Name>MDAwMDAx</Name><Size>70000</Size></Block><Block><Name>MDAwMDAy</Name><Size>5</Size></Block></CommittedBlocks><UncommittedBlocks></UncommittedBlocks>"),
        "the commit used the staged blocks: {all}"
    );

    // A create-only commit onto the blob is refused and leaves it as it was.
    let staged = lake.put_block(&path, "MDAwMDAz", &[], b"other");
    assert_eq!(staged.status, 201);
    let refused = lake.commit(
        &path,
        &[("If-None-Match", "*"), ("x-ms-meta-fabsh_sha256", "ab")],
        "<BlockList><Latest>MDAwMDAz</Latest></BlockList>",
    );
    assert_eq!(refused.status, 409, "{}", refused.text());
    assert_eq!(refused.error_code(), "BlobAlreadyExists");
    assert_eq!(lake.get(name, &[]).body, expected);
}

#[test]
fn blocks_that_arrive_out_of_order_are_joined_in_the_listed_order() {
    let lake = Lake::new();
    let name = "SalesLakehouse.Lakehouse/Files/blocks/reordered.bin";
    let path = lake.path(name);
    let parts = [
        ("MDAwMDAx", binary(1_000)),
        ("MDAwMDAy", vec![1u8; 1_000]),
        ("MDAwMDAz", binary(70_000)),
    ];
    let put_block = |(id, body): &(&str, Vec<u8>), headers: &[(&str, &str)]| {
        lake.put_block(&path, id, headers, body)
    };
    // Azure needs a block's length before its body: sent without one, it is refused and
    // nothing is staged.
    let no_length = put_block(&parts[0], &[("Transfer-Encoding", "chunked")]);
    assert_eq!(no_length.status, 411, "{}", no_length.text());
    assert_eq!(no_length.error_code(), "MissingContentLengthHeader");
    // The second block first, as blocks a client sends at once can arrive.
    for part in [&parts[1], &parts[0], &parts[2]] {
        assert_eq!(put_block(part, &[]).status, 201);
    }
    let list = "<BlockList><Latest>MDAwMDAx</Latest><Latest>MDAwMDAy</Latest><Latest>MDAwMDAz</Latest></BlockList>";
    let committed = lake.commit(&path, &[], list);
    assert_eq!(committed.status, 201, "{}", committed.text());
    let expected: Vec<u8> = parts.iter().flat_map(|(_, body)| body.clone()).collect();
    assert_eq!(lake.get(name, &[]).body, expected);
}

#[test]
fn create_only_and_if_match_writes_are_refused_when_their_condition_fails() {
    let lake = Lake::new();
    let name = "SalesLakehouse.Lakehouse/Files/conditions.txt";
    let created = lake.put(name, b"first", &[("If-None-Match", "*")]);
    assert_eq!(created.status, 201, "{}", created.text());
    let etag = created.header("etag").expect("ETag");

    let again = lake.put(name, b"second", &[("If-None-Match", "*")]);
    assert_eq!(again.status, 409);
    assert_eq!(again.error_code(), "BlobAlreadyExists");
    let stale = lake.put(name, b"second", &[("If-Match", "\"0xNOTTHIS\"")]);
    assert_eq!(stale.status, 412);
    assert_eq!(stale.error_code(), "ConditionNotMet");
    assert_eq!(lake.get(name, &[]).body, b"first");

    let updated = lake.put(name, b"second", &[("If-Match", &etag)]);
    assert_eq!(updated.status, 201, "{}", updated.text());
    assert_ne!(updated.header("etag"), Some(etag.clone()));
    assert_eq!(lake.get(name, &[("If-None-Match", &etag)]).status, 200);
    let current = updated.header("etag").expect("ETag");
    assert_eq!(lake.get(name, &[("If-None-Match", &current)]).status, 304);
}

#[test]
fn a_copy_is_made_at_once_and_refused_onto_an_existing_blob_when_create_only() {
    let lake = Lake::new();
    let (from, to) = (
        "SalesLakehouse.Lakehouse/Files/copy/from.bin",
        "SalesLakehouse.Lakehouse/Files/copy/to.bin",
    );
    let content = binary(4096);
    assert_eq!(lake.put(from, &content, &[]).status, 201);
    let source = format!("{}{}", lake.server.origin(), lake.path(from));
    let copied = lake.call(
        "PUT",
        &lake.path(to),
        &[("x-ms-copy-source", &source), ("If-None-Match", "*")],
        b"",
    );
    assert_eq!(copied.status, 202, "{}", copied.text());
    assert_eq!(
        copied.header("x-ms-copy-status").as_deref(),
        Some("success")
    );
    assert_eq!(lake.get(to, &[]).body, content);
    let refused = lake.call(
        "PUT",
        &lake.path(to),
        &[("x-ms-copy-source", &source), ("If-None-Match", "*")],
        b"",
    );
    assert_eq!(refused.status, 409);
    assert_eq!(refused.error_code(), "BlobAlreadyExists");
}

#[test]
fn a_fabric_token_or_none_is_refused_as_storage_refuses_another_resources_token() {
    let lake = Lake::new();
    let name = "SalesLakehouse.Lakehouse/Files/auth.txt";
    let fabric = lake.call_as(&lake.server.token, "GET", &lake.path(name), &[], b"");
    assert_eq!(fabric.status, 401);
    assert_eq!(fabric.error_code(), "InvalidAuthenticationInfo");
    assert!(
        fabric.text().contains("Audience validation failed"),
        "{}",
        fabric.text()
    );
    assert!(fabric.header("www-authenticate").is_some());
    let none = send(&lake.server.origin(), "GET", &lake.path(name), &[], b"");
    assert_eq!(none.status, 401);
    assert_eq!(none.error_code(), "NoAuthenticationInformation");
    // And the other way round: the storage token is no Fabric token.
    let (status, _) = crate::support::http(
        &lake.server.origin(),
        "GET",
        "/v1/workspaces",
        None,
        &[("Authorization", &format!("Bearer {}", lake.token))],
    );
    assert_eq!(status, 401);
}

/// A storage token from the token endpoint for a new principal with `role` in the session's
/// workspace (no role with `None`).
fn storage_token_of(lake: &Lake, name: &str, role: Option<&str>) -> String {
    let mut extra = vec![];
    if let Some(role) = role {
        extra = vec!["--workspace", lake.server.demo.as_str(), "--role", role];
    }
    let (principal, _) = principal_with_token(&lake.server, name, &extra);
    let form = format!(
        "grant_type=client_credentials&client_id={}&client_secret={}&scope={}",
        principal["clientId"].as_str().expect("clientId"),
        principal["clientSecret"].as_str().expect("clientSecret"),
        q("https://storage.azure.com/.default"),
    );
    let path = format!(
        "/{}/oauth2/v2.0/token",
        principal["tenantId"].as_str().expect("tenantId")
    );
    let (status, body) = crate::support::http(
        &lake.server.origin(),
        "POST",
        &path,
        Some(&form),
        &[("Content-Type", "application/x-www-form-urlencoded")],
    );
    assert_eq!(status, 200, "{body}");
    let token: Value = serde_json::from_str(&body).expect("JSON");
    token["access_token"]
        .as_str()
        .expect("access_token")
        .to_string()
}

#[test]
fn a_contributor_writes_and_a_viewer_or_a_stranger_cannot_touch_the_files() {
    let lake = Lake::new();
    let name = "SalesLakehouse.Lakehouse/Files/roles.txt";
    let contributor = storage_token_of(&lake, "lake-contributor", Some("Contributor"));
    let written = lake.call_as(
        &contributor,
        "PUT",
        &lake.path(name),
        &[("x-ms-blob-type", "BlockBlob")],
        b"by a contributor",
    );
    assert_eq!(written.status, 201, "{}", written.text());
    for (who, token) in [
        (
            "viewer",
            storage_token_of(&lake, "lake-viewer", Some("Viewer")),
        ),
        ("stranger", storage_token_of(&lake, "lake-stranger", None)),
    ] {
        let refused = lake.call_as(
            &token,
            "PUT",
            &lake.path(name),
            &[("x-ms-blob-type", "BlockBlob")],
            b"overwritten",
        );
        assert_eq!(refused.status, 403, "{who}: {}", refused.text());
        assert_eq!(refused.error_code(), "AuthorizationPermissionMismatch");
        let read = lake.call_as(&token, "GET", &lake.path(name), &[], b"");
        assert_eq!(
            read.status, 403,
            "{who} reads no files (docs: a Viewer reads tables through SQL only)"
        );
    }
    assert_eq!(lake.get(name, &[]).body, b"by a contributor");
}

#[test]
fn paths_outside_files_and_tables_unknown_items_and_dot_segments_are_refused() {
    let lake = Lake::new();
    let outside = lake.put("SalesLakehouse.Lakehouse/Other/x.txt", b"x", &[]);
    assert_eq!(outside.status, 400);
    assert_eq!(outside.error_code(), "InvalidUri");
    let root = lake.put("SalesLakehouse.Lakehouse/x.txt", b"x", &[]);
    assert_eq!(root.status, 400);
    let escape = lake.call(
        "PUT",
        &format!(
            "{}/%2E%2E/%2E%2E/escaped.txt",
            lake.path("SalesLakehouse.Lakehouse/Files")
        ),
        &[("x-ms-blob-type", "BlockBlob")],
        b"x",
    );
    assert_eq!(escape.status, 400);
    assert_eq!(escape.error_code(), "InvalidResourceName");
    let unknown = lake.put("Nowhere.Lakehouse/Files/x.txt", b"x", &[]);
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.error_code(), "ResourceNotFound");
    let no_workspace = lake.call(
        "GET",
        "/onelake/no-such-workspace/SalesLakehouse.Lakehouse/Files/x",
        &[],
        b"",
    );
    assert_eq!(no_workspace.status, 404);
    assert_eq!(no_workspace.error_code(), "ContainerNotFound");
    let data = lake.server.data_dir();
    assert!(!data.join("escaped.txt").exists() && !data.join("onelake/escaped.txt").exists());
}

#[test]
fn an_item_named_by_id_is_the_same_item_and_deleting_it_removes_its_files() {
    let lake = Lake::new();
    let id = lake.server.create_demo_item("Scratch", "Lakehouse");
    assert_eq!(
        lake.put("Scratch.Lakehouse/Files/a.txt", b"by name", &[])
            .status,
        201
    );
    assert_eq!(lake.get(&format!("{id}/Files/a.txt"), &[]).body, b"by name");
    let folder = std::fs::read_dir(lake.server.data_dir().join("onelake"))
        .expect("onelake folder")
        .filter_map(Result::ok)
        .map(|ws| ws.path().join(&id))
        .find(|path| path.exists())
        .expect("the item's folder");
    let (status, _) = crate::support::http(
        &lake.server.origin(),
        "DELETE",
        &lake.server.demo_path(&format!("/items/{id}")),
        None,
        &[("Authorization", &lake.server.bearer())],
    );
    assert_eq!(status, 200);
    assert!(!folder.exists(), "{}", folder.display());
}

#[test]
fn a_shortcut_to_a_missing_path_is_refused_and_to_an_existing_one_created() {
    let lake = Lake::new();
    let server = &lake.server;
    let lakehouse = server.demo_item_id("Lakehouse");
    let ws = server.demo_path("");
    let ws_id = ws.rsplit('/').next().expect("workspace id").to_string();
    let holder = server.create_demo_item("Shortcut_holder", "Lakehouse");
    let shortcut = |name: &str, path: &str| {
        json!({"path": "Files", "name": name, "target": {"oneLake": {
            "workspaceId": ws_id, "itemId": lakehouse, "path": path}}})
        .to_string()
    };
    let create = |body: &str| {
        crate::support::http(
            &server.origin(),
            "POST",
            &format!("{ws}/items/{holder}/shortcuts"),
            Some(body),
            &[
                ("Authorization", &server.bearer()),
                ("Content-Type", "application/json"),
            ],
        )
    };
    let (status, body) = create(&shortcut("landing", "Files/landing"));
    assert_eq!(status, 400, "{body}");
    let error: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(error["message"], "Target path doesn't exist", "{body}");

    assert_eq!(
        lake.put(
            "SalesLakehouse.Lakehouse/Files/landing/x.csv",
            b"a,b\n",
            &[]
        )
        .status,
        201
    );
    let (status, body) = create(&shortcut("landing", "Files/landing"));
    assert_eq!(status, 201, "{body}");
    // A table of the lakehouse's SQL data exists as a table folder does on the service.
    let (status, body) = create(&shortcut("orders", "Tables/orders"));
    assert_eq!(status, 201, "{body}");
    let (status, body) = create(&shortcut("nothing", "Tables/no_such_table"));
    assert_eq!(status, 400, "{body}");
}

#[test]
fn storage_tokens_come_from_the_managed_identity_endpoint_and_local_tokens() {
    let lake = Lake::new();
    let server = &lake.server;
    let dir = server.data_dir().to_string_lossy().into_owned();
    let name = server.own_name("lake-identity");
    let identity = server
        .home
        .run(&[
            "local",
            "principal",
            "add",
            "--name",
            &name,
            "--managed-identity",
            "--workspace",
            &server.demo,
            "--role",
            "Contributor",
            "--data-dir",
            &dir,
        ])
        .ok_json();
    let client_id = identity["clientId"].as_str().expect("clientId");
    let (status, body) = crate::support::http(
        &server.origin(),
        "GET",
        &format!(
            "/msi/token?api-version=2019-08-01&resource={}&client_id={client_id}",
            q("https://storage.azure.com")
        ),
        None,
        &[("X-IDENTITY-HEADER", &server.identity_header)],
    );
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).expect("JSON");
    let token = answer["access_token"].as_str().expect("access_token");
    let written = lake.call_as(
        token,
        "PUT",
        &lake.path("SalesLakehouse.Lakehouse/Files/identity.txt"),
        &[("x-ms-blob-type", "BlockBlob")],
        b"by a managed identity",
    );
    assert_eq!(written.status, 201, "{}", written.text());

    let admin = [
        ("Authorization", server.bearer()),
        ("Content-Type", "application/json".into()),
    ];
    let admin: Vec<(&str, &str)> = admin.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (status, body) = crate::support::http(
        &server.origin(),
        "POST",
        "/_local/tokens",
        Some(r#"{"audience":"storage"}"#),
        &admin,
    );
    assert_eq!(status, 200, "{body}");
    let minted: Value = serde_json::from_str(&body).expect("JSON");
    let token = minted["access_token"].as_str().expect("token");
    let claims = token.split('.').nth(1).expect("claims");
    let claims = base64_url(claims);
    assert_eq!(claims["aud"], "https://storage.azure.com");
    let (status, _) = crate::support::http(
        &server.origin(),
        "POST",
        "/_local/tokens",
        Some(r#"{"audience":"keyvault"}"#),
        &admin,
    );
    assert_eq!(status, 400);
}

/// The JSON of a JWT part.
fn base64_url(part: &str) -> Value {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part)
        .expect("base64url");
    serde_json::from_slice(&bytes).expect("JSON claims")
}

#[test]
fn a_lakehouse_lists_its_tables_in_the_swaggers_shape_page_by_page() {
    let lake = Lake::new();
    let server = &lake.server;
    let lakehouse = server.demo_item_id("Lakehouse");
    let definitions = crate::data_agent_wire::swagger("lakehouse/definitions.json");
    let table = &definitions["definitions"]["Table"];
    let types = &definitions["definitions"]["TableType"]["enum"];
    let path = server.demo_path(&format!("/lakehouses/{lakehouse}/tables?maxResults=2"));
    let (status, first) = server.get_json(&path);
    assert_eq!(status, 200, "{first}");
    let mut names = Vec::new();
    let mut page = first;
    loop {
        for entry in page["data"].as_array().expect("data") {
            for key in table["required"].as_array().expect("required") {
                let key = key.as_str().expect("key");
                assert!(entry[key].is_string(), "{key} of {entry}");
            }
            assert!(
                types.as_array().expect("enum").contains(&entry["type"]),
                "{entry}"
            );
            names.push(entry["name"].as_str().expect("name").to_string());
        }
        let Some(next) = page["continuationUri"].as_str() else {
            break;
        };
        let next = next.trim_start_matches(&server.origin()).to_string();
        let (status, body) = server.get_json(&next);
        assert_eq!(status, 200, "{body}");
        page = body;
    }
    names.sort();
    assert_eq!(names, ["customers", "orders", "products"]);
    let notebook = server.demo_item_id("Notebook");
    let (status, _) = server.get_json(&server.demo_path(&format!("/notebooks/{notebook}/tables")));
    assert_eq!(status, 404);
}
