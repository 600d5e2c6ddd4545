//! The model providers `--agent` and `--judge` can name (`openai:MODEL`, `anthropic:MODEL`): each provider's endpoint, key variable and backend, in one exhaustive match.

use super::anthropic::Anthropic;
use super::backend::Backend;
use super::http::Http;
use super::openai::OpenAi;

/// A model provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI-compatible `/v1/chat/completions`: OpenAI, vLLM, Ollama, llama-server, OpenRouter.
    OpenAi,
    /// Anthropic's Messages API.
    Anthropic,
}

/// Everything that differs between providers.
pub struct Profile {
    /// The provider's name in `PROVIDER:MODEL`.
    pub name: &'static str,
    /// Environment variable overriding the base URL.
    pub base_url_env: &'static str,
    /// The provider's own API.
    pub default_base_url: &'static str,
    /// Environment variable holding the API key (unless `--api-key-env` names another).
    pub api_key_env: &'static str,
    /// The backend for a model at a base URL.
    pub connect: fn(model: &str, base: &str, key: Option<String>, http: Http) -> Box<dyn Backend>,
}

impl Provider {
    /// Every provider, in the order help texts list them.
    pub const ALL: [Provider; 2] = [Provider::OpenAi, Provider::Anthropic];

    /// What this provider needs; adding a provider adds an arm here.
    pub fn profile(self) -> Profile {
        match self {
            Provider::OpenAi => Profile {
                name: "openai",
                base_url_env: "OPENAI_BASE_URL",
                default_base_url: "https://api.openai.com",
                api_key_env: "OPENAI_API_KEY",
                connect: |model, base, key, http| Box::new(OpenAi::new(model, base, key, http)),
            },
            Provider::Anthropic => Profile {
                name: "anthropic",
                base_url_env: "ANTHROPIC_BASE_URL",
                default_base_url: "https://api.anthropic.com",
                api_key_env: "ANTHROPIC_API_KEY",
                connect: |model, base, key, http| Box::new(Anthropic::new(model, base, key, http)),
            },
        }
    }

    /// The provider called `name` (`openai`, `anthropic`).
    pub fn by_name(name: &str) -> Option<Provider> {
        Provider::ALL.into_iter().find(|p| p.profile().name == name)
    }

    /// `openai:MODEL, anthropic:MODEL`, each spelling prefixed by `prefix`
    /// (`llm:` for the judge), for error messages and help.
    pub fn spellings(prefix: &str) -> String {
        Provider::ALL
            .iter()
            .map(|p| format!("{prefix}{}:MODEL", p.profile().name))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_none() {
        for provider in Provider::ALL {
            assert_eq!(Provider::by_name(provider.profile().name), Some(provider));
        }
        assert_eq!(Provider::by_name("gemini"), None);
        assert_eq!(Provider::spellings(""), "openai:MODEL, anthropic:MODEL");
        assert_eq!(
            Provider::spellings("llm:"),
            "llm:openai:MODEL, llm:anthropic:MODEL"
        );
    }
}
