/**
 * "Feature learning as alignment: a structural property of gradient descent in non-linear neural networks"
 * (anonymous): the neural feature correlation of chain monomials (nfa-chain-monomial), centred against uncentred NFC
 * over training (centred-nfc), speed-limited optimisation (slo) and the free-probability prediction of the C-NFC
 * (nfc-prediction), with the MLPs and data of {@code NfaSetup}.
 */
package org.ntk4j.experiment.featurealignment;
