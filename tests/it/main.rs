//! The integration tests: one test binary. They run the real binary (or the library) against
//! local Fabric on an ephemeral loopback port, with HOME and XDG dirs in a temp dir.

mod auth;
mod bad_input;
mod bad_input_agents;
mod bad_input_organisation;
mod bad_input_query;
mod bad_input_shares_bulk;
mod bulk;
mod cli_basics;
mod copy_move;
mod data_agent_endpoints;
mod data_agent_evaluate;
mod data_agent_query;
mod data_agents;
mod data_agents_local;
mod definitions;
mod http_core;
mod identity;
mod inspect;
mod items;
mod judge_stub;
mod local_server;
mod organisation;
mod registry_checks;
mod replay;
mod script_bindings;
mod script_bulk;
mod script_cancel;
mod script_cases;
mod script_examples;
mod script_repl;
mod script_stdlib;
mod shares;
mod stub;
mod support;
mod validation;
