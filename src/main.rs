use std::process::ExitCode;

fn main() -> ExitCode {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => fabsh::run(std::env::args_os().collect(), runtime.handle().clone()),
        Err(err) => {
            let err = fabsh::Error::runtime(format!("cannot start the async runtime: {err}"));
            fabsh::output::Printer::plain().error(&err);
            ExitCode::from(err.exit_code())
        }
    }
}
