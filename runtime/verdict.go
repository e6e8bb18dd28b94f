package runtime

// VerdictVocabulary is the verdict detector's vocabulary for one language.
type VerdictVocabulary struct{}

func englishVerdict() VerdictVocabulary { return VerdictVocabulary{} }
