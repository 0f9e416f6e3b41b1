//! Hook wiring kept in a dotfiles folder and linked into place: the service protects the real
//! file too (real files and a real symbolic link in a temporary home).

#[cfg(unix)]
#[test]
fn linked_hook_wiring_protects_its_real_file() {
    use airlock_core::paths::Paths;
    use std::path::Path;
    let home = tempfile::tempdir().expect("temp home");
    let dotfiles = home.path().join("dotfiles/claude");
    std::fs::create_dir_all(&dotfiles).expect("dotfiles");
    std::fs::write(dotfiles.join("settings.json"), "{}").expect("settings");
    std::fs::create_dir_all(home.path().join(".claude")).expect(".claude");
    std::os::unix::fs::symlink(
        dotfiles.join("settings.json"),
        home.path().join(".claude/settings.json"),
    )
    .expect("link");
    let state = tempfile::tempdir().expect("state");
    let paths = Paths::system_for_user(state.path(), 1000, Some(home.path().to_path_buf()));
    let real = std::fs::canonicalize(dotfiles.join("settings.json")).expect("real");
    let protected = paths.protected();
    assert!(
        protected.iter().any(|p| Path::new(p) == real),
        "{protected:?}"
    );
    // A file that is not a link adds nothing of its own.
    assert!(
        !protected
            .iter()
            .any(|p| p.ends_with("/.gemini/settings.json"))
    );
}
