//! Unpacking a downloaded zip (`format = "zip"`, `extract = [...]`): only the declared members, each
//! found by its file name wherever it lies in the archive (publishers' zips sometimes nest a folder), or
//! by its last folders and file name where the file name repeats (ND-GAIN's `gain/gain.csv` beside
//! `trends/gain.csv`, under `resources/` or, in the 2026 release, `resources 2/`),
//! written beside the archive's place in the raw folder, capped in size, hashed as written.

use std::{
    io::{Read, Write},
    path::{Path, PathBuf},
};

use corpus::manifest::hex;
use sha2::{Digest, Sha256};

/// Unpacks each `(member name, target path)` of `members` from the zip at `archive`; the sha256 (hex) and
/// size of each, in order.
///
/// # Errors
/// A sentence naming what failed: the archive does not open, a member is missing or named twice (in two
/// folders), a member unpacks past `max_bytes`, or writing fails.
pub(super) fn unpack(
    archive: &Path,
    members: &[(&str, PathBuf)],
    max_bytes: u64,
) -> Result<Vec<(String, u64)>, String> {
    let file =
        std::fs::File::open(archive).map_err(|error| format!("{}: {error}", archive.display()))?;
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(file))
        .map_err(|error| format!("the download is not a readable zip archive: {error}"))?;
    let names: Vec<String> = zip
        .file_names()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| format!("the archive's member names do not read: {error}"))?
        .into_iter()
        .map(|name| name.into_owned())
        .collect();
    let mut unpacked = Vec::with_capacity(members.len());
    for (member, target) in members {
        let matching: Vec<&String> = names
            .iter()
            .filter(|name| name.as_str() == *member || name.ends_with(&format!("/{member}")))
            .collect();
        let name = match matching.as_slice() {
            [name] => (*name).clone(),
            [] => {
                let mut listed: Vec<&str> = names.iter().map(String::as_str).take(20).collect();
                listed.sort_unstable();
                return Err(format!(
                    "the archive has no member `{member}`; it holds: {}",
                    listed.join(", ")
                ));
            }
            several => {
                return Err(format!(
                    "the archive holds `{member}` {} times ({}): name one",
                    several.len(),
                    several
                        .iter()
                        .map(|name| name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        };
        let entry = zip
            .by_name(&name)
            .map_err(|error| format!("member `{name}`: {error}"))?;
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|error| format!("{}: {error}", parent.display()))?;
        }
        let mut out = std::fs::File::create(target)
            .map_err(|error| format!("{}: {error}", target.display()))?;
        let mut hasher = Sha256::new();
        let mut limited = entry.take(max_bytes + 1);
        let mut buffer = vec![0u8; 1 << 16];
        let mut bytes: u64 = 0;
        loop {
            let read = limited
                .read(&mut buffer)
                .map_err(|error| format!("member `{name}` does not unpack: {error}"))?;
            if read == 0 {
                break;
            }
            bytes += read as u64;
            if bytes > max_bytes {
                return Err(format!(
                    "member `{name}` unpacks past the {max_bytes} bytes allowed"
                ));
            }
            hasher.update(&buffer[..read]);
            out.write_all(&buffer[..read])
                .map_err(|error| format!("{}: {error}", target.display()))?;
        }
        if bytes == 0 {
            return Err(format!("member `{name}` is empty"));
        }
        unpacked.push((hex(&hasher.finalize()), bytes));
    }
    Ok(unpacked)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A zip of `files` (name, bytes), deflated, written with the same crate.
    fn zip_of(path: &Path, files: &[(&str, &[u8])]) {
        let mut writer = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
        for (name, bytes) in files {
            writer
                .start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            writer.write_all(bytes).unwrap();
        }
        writer.finish().unwrap();
    }

    #[test]
    fn declared_members_unpack_by_name_and_others_stay_packed() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("WDI_CSV.zip");
        let data = "\u{feff}\"Country Name\",\"Country Code\",\"Indicator Name\",\"Indicator Code\",\"2023\",\n\"Chile\",\"CHL\",\"Life expectancy at birth, total (years)\",\"SP.DYN.LE00.IN\",\"81.17\",\n";
        zip_of(
            &archive,
            &[
                ("WDICSV.csv", data.as_bytes()),
                ("nested/WDISeries.csv", b"\"Series Code\"\n"),
                ("WDIfootnote.csv", b"x"),
            ],
        );
        let targets = [
            ("WDICSV.csv", dir.path().join("out/WDICSV.csv")),
            ("WDISeries.csv", dir.path().join("out/WDISeries.csv")),
        ];
        let unpacked = unpack(&archive, &targets, 1 << 20).unwrap();
        assert_eq!(unpacked[0].1, data.len() as u64);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("out/WDICSV.csv")).unwrap(),
            data
        );
        assert!(!dir.path().join("out/WDIfootnote.csv").exists());

        let missing =
            unpack(&archive, &[("WDIData.csv", dir.path().join("x"))], 1 << 20).unwrap_err();
        assert!(
            missing.contains("no member `WDIData.csv`") && missing.contains("WDICSV.csv"),
            "{missing}"
        );
        let too_big = unpack(&archive, &targets[..1], 10).unwrap_err();
        assert!(too_big.contains("past the 10 bytes"), "{too_big}");
        // A member named by its folder and file tells apart two files of one name (ND-GAIN's layout).
        let nd_gain = dir.path().join("nd_gain.zip");
        zip_of(
            &nd_gain,
            &[
                ("resources/gain/gain.csv", b"\"ISO3\",\"Name\",\"2020\"\n"),
                (
                    "resources/trends/gain.csv",
                    b"\"ISO3\",\"Name\",\"Value\",\"sign\"\n",
                ),
            ],
        );
        let twice = unpack(&nd_gain, &[("gain.csv", dir.path().join("g"))], 1 << 20).unwrap_err();
        assert!(twice.contains("2 times"), "{twice}");
        let target = dir.path().join("out/gain/gain.csv");
        unpack(&nd_gain, &[("gain/gain.csv", target.clone())], 1 << 20).unwrap();
        assert!(
            std::fs::read_to_string(&target)
                .unwrap()
                .ends_with("\"2020\"\n")
        );
        std::fs::write(&archive, b"<html>not a zip</html>").unwrap();
        assert!(
            unpack(&archive, &targets, 1 << 20)
                .unwrap_err()
                .contains("not a readable zip")
        );
    }
}
