// Package lpbound computes the Gilmore–Gomory configuration-LP lower bound.
package lpbound
