use std::process::ExitCode;

fn main() -> ExitCode {
    // Before the runtime's threads exist: the zone can be read safely only now.
    fabsh_client::local_time::remember_local_offset();
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => fabsh::run(std::env::args_os().collect(), runtime.handle().clone()),
        Err(err) => {
            let err =
                fabsh_client::Error::runtime(format!("cannot start the async runtime: {err}"));
            fabsh_client::output::Printer::plain().error(&err);
            ExitCode::from(err.exit_code())
        }
    }
}
