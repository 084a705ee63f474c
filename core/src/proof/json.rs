//! The proof readers' names for core's strict JSON reader (`crate::json`): trust material is read like every other
//! document, with repeated member names refused.

pub(crate) use crate::json::{
    Container, Shaped, Text, first_repeat, member_name, read_str as parse_strict, read_text, wrong_type,
    wrong_type_named,
};
