//! A real PostgreSQL for the tests (feature `postgres`): Debian's server binaries (package `postgresql`, under
//! `/usr/lib/postgresql/<version>/bin`; `make test` installs it), a cluster `initdb`ed in a temporary folder and
//! listening only on a Unix socket in that folder (no TCP port at all), trust authentication for the user `curbi`.
//! PostgreSQL refuses to run as root, so when the tests run as root (here and in CI) the folder is handed to the
//! unprivileged user `nobody` and `initdb` and `postgres` run as that user through `setpriv` (util-linux). The
//! server is stopped and the folder removed when the [`PgServer`] is dropped, a failing test's unwinding included.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `nobody` and `nogroup` on Debian.
const UNPRIVILEGED: u32 = 65534;

/// The highest installed version's `bin` folder.
fn bin_dir() -> PathBuf {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((v, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, b)| b).unwrap_or_else(|| {
        panic!("no PostgreSQL server under /usr/lib/postgresql: apt-get install -y postgresql (scripts/test.sh does)")
    })
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0").unwrap_or(false)
}

/// A command that runs as the unprivileged user when we are root.
fn as_server_user(program: &Path, root: bool) -> Command {
    if root {
        let mut c = Command::new("setpriv");
        c.args([&format!("--reuid={UNPRIVILEGED}"), &format!("--regid={UNPRIVILEGED}"), "--clear-groups", "--"])
            .arg(program);
        c
    } else {
        Command::new(program)
    }
}

/// A running PostgreSQL cluster of its own.
pub struct PgServer {
    dir: tempfile::TempDir,
    child: Option<Child>,
}

pub const PORT: u16 = 5432;

impl PgServer {
    pub fn start() -> PgServer {
        let bin = bin_dir();
        let root = is_root();
        let dir = tempfile::Builder::new().prefix("curbi-pg").tempdir().expect("a temporary folder");
        if root {
            std::os::unix::fs::chown(dir.path(), Some(UNPRIVILEGED), Some(UNPRIVILEGED))
                .expect("hands the folder over");
        }
        let data = dir.path().join("data");
        let out = as_server_user(&bin.join("initdb"), root)
            .args(["-A", "trust", "-U", "curbi", "-E", "UTF8", "--locale=C", "--no-sync", "-D"])
            .arg(&data)
            .output()
            .expect("runs initdb");
        assert!(
            out.status.success(),
            "initdb failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let log = std::fs::File::create(dir.path().join("server.log")).expect("log file");
        let child = as_server_user(&bin.join("postgres"), root)
            .arg("-D")
            .arg(&data)
            .arg("-k")
            .arg(dir.path())
            .args(["-p", &PORT.to_string(), "-c", "listen_addresses=", "-c", "max_connections=60"])
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .spawn()
            .expect("starts postgres");
        let server = PgServer { dir, child: Some(child) };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if postgres::Client::connect(&server.url("postgres"), postgres::NoTls).is_ok() {
                break;
            }
            assert!(Instant::now() < deadline, "PostgreSQL did not start: {}", server.log());
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }

    /// The URL of database `db` on this cluster (over the Unix socket).
    pub fn url(&self, db: &str) -> String {
        format!("postgresql:///{db}?host={}&port={PORT}&user=curbi", self.dir.path().display())
    }

    /// A new empty database; its URL.
    pub fn create_db(&self, name: &str) -> String {
        let mut c = self.client("postgres");
        c.batch_execute(&format!("CREATE DATABASE {name}")).expect("creates the database");
        self.url(name)
    }

    pub fn client(&self, db: &str) -> postgres::Client {
        postgres::Client::connect(&self.url(db), postgres::NoTls).expect("connects")
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // A fast shutdown (SIGINT); SIGKILL if it has not stopped in 15 s.
            let _ = Command::new("kill").args(["-INT", &child.id().to_string()]).status();
            let deadline = Instant::now() + Duration::from_secs(15);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
