pub fn parse_price(s: &str) -> u64 { s.len() as u64 } // snake_case_name v2X JSONValue
